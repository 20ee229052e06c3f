/*
 * hotpath.c - a small program for the AutoFDO loop (tests/e2e/afdo_loop.sh):
 * a hot loop with an inlined helper whose branches are skewed, an indirect
 * call that almost always reaches one target, and a helper that gcc clones
 * for a constant argument. `hotpath ROUNDS` prints a checksum that does not
 * depend on the compiler or the profile.
 */
#include <stdio.h>
#include <stdlib.h>

#define N 4096

static unsigned lcg(unsigned *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

static inline int classify(unsigned x)
{
	if (x % 16 == 0)      /* 1 in 16 */
		return 2;
	if (x % 3 == 0)       /* about 1 in 3 */
		return 1;
	return 0;
}

static unsigned mix_add(unsigned a, unsigned b) { return a + b; }
static unsigned mix_xor(unsigned a, unsigned b) { return a ^ b; }
static unsigned mix_rot(unsigned a, unsigned b) { return (a << 5 | a >> 27) + b; }

static unsigned (*const mixers[4])(unsigned, unsigned) = { mix_add, mix_add, mix_add, mix_xor };

__attribute__((noinline)) static unsigned scale(unsigned x, unsigned divisor)
{
	return x % divisor + x / divisor;
}

__attribute__((noinline)) unsigned work(const unsigned *v, int n, unsigned seed)
{
	unsigned s = seed;

	for (int i = 0; i < n; i++) {
		switch (classify(v[i])) {
		case 2:
			s = mix_rot(s, v[i]);
			break;
		case 1:
			s ^= v[i];
			break;
		default:
			s = mixers[(v[i] >> 4) % 32 == 0 ? 3 : (v[i] >> 7) % 3](s, v[i]);
			break;
		}
		s += scale(v[i], 97);
	}
	return s;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1000;
	static unsigned v[N];
	unsigned state = 1, sum = 0;

	for (int i = 0; i < N; i++)
		v[i] = lcg(&state);
	for (int r = 0; r < rounds; r++)
		sum += work(v, N, (unsigned)r);
	printf("%u\n", sum);
	return 0;
}
