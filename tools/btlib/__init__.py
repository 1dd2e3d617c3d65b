"""btlib — baretrace's host-side trace decoding, shared by tools/bt-export
and the gdb extension.

  frames    the framed binary dump in a console log -> Dump (pages, names)
  events    ring-buffer pages -> events; the guest's merged iteration
  fsig      argument / return value text from signatures
  text      the guest's `cat trace` text
  tracedat  trace.dat version 6 for trace-cmd report / KernelShark
  chrome    Chrome trace-event JSON for Perfetto
"""
