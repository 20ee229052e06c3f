/*
 * bubble.c - the program tests/e2e/autofdo.sh compiles, profiles and turns
 * into an AutoFDO profile: a bubble sort whose swaps go through a
 * function that must not be inlined, so that create_gcov sees a hot
 * function (bubble_sort), a call site and a callee head count (swap_ints).
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void swap_ints(int *a, int *b)
{
	int t = *a;

	*a = *b;
	*b = t;
}

__attribute__((noinline)) void bubble_sort(int *v, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j + 1 < n - i; j++)
			if (v[j] > v[j + 1])
				swap_ints(&v[j], &v[j + 1]);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 20;
	int n = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 3000;
	int *v = malloc(sizeof(*v) * (size_t)n);
	long sum = 0;

	if (n < 2 || !v)
		return 1;
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < n; i++)
			v[i] = (int)((unsigned)(i * 7919 + r * 104729) % 100003u);
		bubble_sort(v, n);
		sum += v[r % n];
	}
	printf("%ld\n", sum);
	free(v);
	return 0;
}
