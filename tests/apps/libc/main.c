/*
 * main.c — the C library an APP gets, exercised: formatted I/O (C99),
 * libm, files (the APP's data directory and in-memory writes), time and
 * process calls, and a third-party-style layout (vendor/ with its own
 * include directory from app.mk, a file kept uninstrumented).
 *
 * tests/checks/checks_libc.py compares every line it prints with expected.txt;
 * values that differ from run to run (the time) are judged here and
 * printed as a verdict.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

#include "fmt.h"

static int failures;

static void check(int ok, const char *what)
{
	if (!ok) {
		failures++;
		printf("FAILED: %s\n", what);
	}
}

static void formats(void)
{
	printf("g: %g %g %g %g\n", 0.1, 1e20, 123456789.0, -0.0);
	printf("f: %f %.2f %10.3f|\n", 3.14159265, 2.675, -1.5);
	printf("e: %e %.3E\n", 12345.678, 0.000123);
	printf("a: %a %a\n", 1.0, -0.75);
	printf("ll: %lld %llu %llx\n", LLONG_MIN, ULLONG_MAX, 0x123456789abcdefULL);
	printf("c99: %zu %zd %jd %ju %hhd %hhu %hd %td\n", sizeof(long), (ssize_t)-3,
	       (intmax_t)-42, (uintmax_t)42, (signed char)300, (unsigned char)300,
	       (short)70000, (ptrdiff_t)-9);
	printf("inttypes: %" PRId64 " %" PRIu32 " %" PRIx8 "\n", (int64_t)-5, (uint32_t)7,
	       (uint8_t)255);
	printf("Lg: %Lg %.3Lf\n", (long double)1.5, (long double)2.0 / 3);
	printf("inf nan: %f %g %F\n", INFINITY, -INFINITY, NAN);

	double d = 0;
	long long ll = 0;
	signed char hh = 0;
	size_t z = 0;
	intmax_t j = 0;
	int n = sscanf("2.5e3 -123456789012 -12 77 -9000000000", "%lg %lld %hhd %zu %jd",
		       &d, &ll, &hh, &z, &j);
	printf("scanf: %d items: %g %lld %d %zu %jd\n", n, d, ll, hh, z, j);
	float f = 0;
	n = sscanf("0x1.8p1 junk", "%f", &f);
	printf("scanf %%f of 0x1.8p1 (newlib reads no hex float): %d %g\n", n, (double)f);
	printf("strtod: %g %g\n", strtod("1e-3", NULL), strtod("-0x10p0", NULL));

	char buf[64];
	double v[] = { 1.5, 2.25, -3 };
	fmt_join(buf, sizeof buf, v, 3);
	printf("vendor fmt_join: %s\n", buf);
	printf("vendor checksum: %u\n", checksum_bytes("abc", 3));
}

static void maths(void)
{
	int e = 0;
	double m = frexp(8.0, &e);
	printf("libm: fabs %g floor %g ceil %g fmod %g frexp %g,%d ldexp %g\n", fabs(-2.5),
	       floor(-2.5), ceil(-2.5), fmod(10, 3), m, e, ldexp(0.75, 4));
	printf("libm: pow %g sqrt %.6f exp %.6f log %.6f log10 %g\n", pow(2, 10), sqrt(2),
	       exp(1), log(10), log10(1000));
	printf("libm: sin %.6f cos %.6f atan2 %.6f hypot %g trunc %g round %g\n", sin(0.5),
	       cos(0.5), 4 * atan2(1, 1), hypot(3, 4), trunc(-2.7), round(2.5));
	printf("libm: float sqrtf %.4f powf %g lround %ld isnan %d\n", (double)sqrtf(2.0f),
	       (double)powf(3.0f, 4.0f), lround(-3.5), isnan(sqrt(-1.0)) != 0);
}

static void print_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		printf("fopen %s: %s\n", path, strerror(errno));
		failures++;
		return;
	}
	char line[128];
	while (fgets(line, sizeof line, f))
		printf("%s: %s", path, line);
	fclose(f);
}

static void files(void)
{
	print_file("hello.txt");
	print_file("/sub/numbers.txt");

	FILE *f = fopen("sub/numbers.txt", "r");
	int a = 0, c = 0;
	double b = 0;
	if (f) {
		printf("fscanf: %d", fscanf(f, "%d %lg %d", &a, &b, &c));
		printf(" -> %d %g %d\n", a, b, c);
		fclose(f);
	}

	errno = 0;
	f = fopen("missing.txt", "r");
	printf("missing: %s, errno %s (%s)\n", f ? "opened" : "NULL",
	       errno == ENOENT ? "ENOENT" : "other", strerror(errno));

	/* Write a new file, read it back through the same stream and a new one. */
	unsigned char out[3000], in[3000];
	for (size_t i = 0; i < sizeof out; i++)
		out[i] = (unsigned char)(i * 7 + 1);
	f = fopen("out.bin", "w+b");
	if (!f) {
		printf("fopen out.bin: %s\n", strerror(errno));
		failures++;
		return;
	}
	size_t w = fwrite(out, 1, sizeof out, f);
	rewind(f);
	size_t r = fread(in, 1, sizeof in, f);
	printf("out.bin: wrote %zu, read back %zu, %s\n", w, r,
	       memcmp(in, out, sizeof in) ? "differs" : "equal");
	fclose(f);

	f = fopen("out.bin", "ab");
	fputs("tail", f);
	fclose(f);
	struct stat st;
	int sr = stat("out.bin", &st);
	printf("stat out.bin: %d, size %ld, regular %d\n", sr, (long)st.st_size,
	       S_ISREG(st.st_mode) != 0);
	f = fopen("out.bin", "rb");
	fseek(f, -4, SEEK_END);
	char tail[8] = { 0 };
	r = fread(tail, 1, sizeof tail - 1, f);
	printf("out.bin: ftell %ld after reading \"%s\" (%zu)\n", ftell(f), tail, r);
	fclose(f);

	/* A data file written over is changed for later opens, not in the archive. */
	f = fopen("hello.txt", "w");
	fprintf(f, "rewritten %d\n", 42);
	fclose(f);
	print_file("hello.txt");

	/* Low-level calls: O_EXCL, lseek past the end, unlink while open. */
	int fd = open("new.txt", O_CREAT | O_EXCL | O_RDWR, 0644);
	int fd2 = open("new.txt", O_CREAT | O_EXCL | O_RDWR, 0644);
	printf("open O_EXCL: %s, again: %d %s\n", fd >= 3 ? "fd" : "bad", fd2,
	       errno == EEXIST ? "EEXIST" : "other");
	lseek(fd, 5, SEEK_SET);
	write(fd, "x", 1);
	printf("lseek+write: size %ld\n", (long)lseek(fd, 0, SEEK_END));
	printf("unlink new.txt: %d\n", unlink("new.txt"));
	/* The unlinked file lives on while open, whatever is created after it. */
	int other = open("other.txt", O_CREAT | O_WRONLY | O_APPEND, 0600);
	lseek(other, 0, SEEK_SET);
	write(other, "0123456789", 10);
	lseek(other, 0, SEEK_SET);
	write(other, "ab", 2);
	struct stat ost;
	fstat(other, &ost);
	printf("O_APPEND: size %ld, mode %o\n", (long)ost.st_size, (unsigned)ost.st_mode & 0777);
	close(other);
	print_file("other.txt");
	printf("\n");
	lseek(fd, 0, SEEK_SET);
	char z[6] = { 1, 1, 1, 1, 1, 1 };
	long got = (long)read(fd, z, 6);
	printf("read after unlink: %ld, zeros %d\n", got, z[0] == 0 && z[4] == 0 && z[5] == 'x');
	close(fd);
	errno = 0;
	fd = open("new.txt", O_RDONLY);
	printf("open unlinked: %d %s\n", fd, errno == ENOENT ? "ENOENT" : "other");
	int r1 = remove("out.bin");
	errno = 0;
	int r2 = remove("out.bin");
	printf("remove out.bin: %d, again: %d %s\n", r1, r2, errno == ENOENT ? "ENOENT" : "other");
	r1 = rename("hello.txt", "renamed.txt");
	errno = 0;
	f = fopen("hello.txt", "r");
	printf("rename hello.txt: %d, old: %s\n", r1, f ? "exists" : errno == ENOENT ? "ENOENT" : "other");
	print_file("renamed.txt");
	fd = open("renamed.txt", O_RDONLY);
	errno = 0;
	got = (long)write(fd, "x", 1);
	printf("write to a read-only fd: %ld %s\n", got, errno == EBADF ? "EBADF" : "other");
	printf("isatty: %d %d\n", isatty(1), isatty(fd));
	close(fd);
}

static void clocks(void)
{
	time_t t = time(NULL);
	struct timeval tv;
	gettimeofday(&tv, NULL);
	/* 2023-11-14 .. 2100-01-01: a wall clock, not seconds since boot. */
	check(t > 1700000000 && t < 4102444800LL, "time() is a date");
	check(tv.tv_sec >= t && tv.tv_sec <= t + 1 && tv.tv_usec >= 0 && tv.tv_usec < 1000000,
	      "gettimeofday agrees with time()");
	struct tm tm;
	gmtime_r(&t, &tm);
	check(tm.tm_year >= 123, "gmtime's year");

	struct timespec m0, m1, rt;
	clock_gettime(CLOCK_MONOTONIC, &m0);
	volatile double x = 0;
	for (int i = 0; i < 100000; i++)
		x += sqrt(i);
	clock_gettime(CLOCK_MONOTONIC, &m1);
	clock_gettime(CLOCK_REALTIME, &rt);
	int64_t dt = (int64_t)(m1.tv_sec - m0.tv_sec) * 1000000000 + (m1.tv_nsec - m0.tv_nsec);
	check(dt > 0 && dt < 60 * 1000000000LL, "CLOCK_MONOTONIC advances");
	check(rt.tv_sec >= t && rt.tv_sec <= t + 60, "CLOCK_REALTIME is time()'s clock");
	struct timespec res;
	check(clock_getres(CLOCK_MONOTONIC, &res) == 0 && res.tv_sec == 0 && res.tv_nsec > 0,
	      "clock_getres");
	errno = 0;
	check(clock_gettime((clockid_t)99, &rt) == -1 && errno == EINVAL, "a bad clock is EINVAL");
	struct tms tms;
	clock_t c = times(&tms);
	check(c != (clock_t)-1 && c > 0 && tms.tms_stime == 0, "times()");
	check(clock() != (clock_t)-1, "clock()");
	printf("time: %s\n", failures ? "wrong" : "sane");
}

static void process(void)
{
	printf("getpid: %d\n", (int)getpid());
	int k0 = kill(getpid(), 0);
	errno = 0;
	int k2 = kill(2, 0);
	printf("kill(getpid(), 0): %d; kill(2, 0): %d %s\n", k0, k2,
	       errno == ESRCH ? "ESRCH" : "other");
	errno = 0;
	k0 = kill(getpid(), 999);
	printf("kill(getpid(), 999): %d %s\n", k0, errno == EINVAL ? "EINVAL" : "other");
	int s0 = system(NULL);
	errno = 0;
	int s1 = system("ls");
	printf("system: %d, %d %s\n", s0, s1, errno == ENOSYS ? "ENOSYS" : "other");
	FILE *t = tmpfile();
	char back[8] = { 0 };
	if (t) {
		fputs("tmp", t);
		rewind(t);
		fgets(back, sizeof back, t);
		fclose(t);
	}
	printf("tmpfile: %s\n", back);
}

int app_main(void)
{
	formats();
	maths();
	files();
	clocks();
	process();
	printf("libc: %d failures\n", failures);
	printf("a last line without a newline, flushed when app_main returns");
	return failures ? 1 : 0;
}
