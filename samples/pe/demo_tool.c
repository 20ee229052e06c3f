/*
 * demo_tool.c - the second Windows program behind samples/demo-pe.spt,
 * built by scripts/make-pe.sh with mingw-w64 gcc (DWARF debug information
 * inside the PE, and mingw's C runtime).
 */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

NOINLINE unsigned long long tool_scan(const char *text)
{
	unsigned long long words = 0;

	for (const char *p = text; *p; p++)
		words += (*p == ' ');
	return words;
}

NOINLINE void tool_sort(int *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			int t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

int main(int argc, char **argv)
{
	int v[64];

	for (int i = 0; i < 64; i++)
		v[i] = (i * 37) % 64;
	tool_sort(v, 64);
	printf("%llu %d\n", tool_scan(argc > 1 ? argv[1] : "a b c"), v[0]);
	return 0;
}
