/*
 * btf_sample.c — prototypes with known types for tests/host/test_btf.c:
 * built with -g, turned into BTF by pahole (tests/host/Makefile), decoded
 * and checked field by field.  Never run.
 */
#include <stdbool.h>

enum sample_mode { MODE_NEG = -2, MODE_POS = 1 };
enum __attribute__((packed)) sample_small { SMALL_A, SMALL_B };
struct sample_pair { long a, b; };
struct sample_big { long a[4]; };
union sample_u { int i; unsigned u; };
typedef unsigned long ulong_t;
typedef const char *str_t;

int f(int a, unsigned long flags, const char *s, enum sample_mode v, void *p)
{
	return a + (int)flags + (s != 0) + v + (p != 0);
}

bool kinds(bool b, signed char c, short h, unsigned char uc, long long ll,
	   unsigned short us, enum sample_small e)
{
	return b || c || h || uc || ll || us || e;
}

void nothing(void)
{
}

ulong_t typedefs(ulong_t x, str_t s, volatile int *vp, char *const cs, const volatile char *cvs)
{
	return x + (s != 0) + (vp != 0) + (cs != 0) + (cvs != 0);
}

long varargs(int n, ...)
{
	return n;
}

long aggregates(struct sample_pair p, struct sample_big b, double d, int after,
		union sample_u u, float x)
{
	return p.a + b.a[0] + (long)d + after + u.i + (long)x;
}

/* Arguments past the registers (fsig.c's planner): eleven integers, and a
 * 16-byte struct after five ints (SysV: one register left, so it goes on
 * the stack and z takes that register; AAPCS64: x5, x6). */
long many(int a, int b, int c, int d, int e, int f, int g, int h, int i, int j, const char *k)
{
	return a + b + c + d + e + f + g + h + i + j + (k != 0);
}

long split(int a, int b, int c, int d, int e, struct sample_pair p, int z)
{
	return a + b + c + d + e + p.a + z;
}

float ret_float(void) { return 1.0f; }
unsigned ret_uint(void) { return 1; }
void *ret_ptr(void) { return 0; }
enum sample_mode ret_enum(void) { return MODE_NEG; }
char ret_char(void) { return 'x'; }
unsigned long ret_ulong(void) { return 1; }
bool ret_bool(void) { return true; }
struct sample_pair ret_pair(void) { struct sample_pair p = { 1, 2 }; return p; }
int ambiguous_name(int x) { return x; }
int not_in_ksyms(int x) { return x; }
