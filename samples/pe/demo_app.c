/*
 * demo_app.c - the Windows program behind samples/demo-pe.spt, built by
 * scripts/make-pe.sh with clang and lld-link (CodeView debug information
 * in a PDB, no C runtime: the entry point is main). Each function does a
 * little work and is kept out of line, so that a profile names it.
 */
#define NOINLINE __attribute__((noinline))

volatile unsigned long long demo_sink;
static unsigned char demo_buffer[4096], demo_copy[4096];

NOINLINE unsigned long long checksum_block(const unsigned char *p, unsigned n)
{
	unsigned long long sum = 1469598103934665603ULL;

	for (unsigned i = 0; i < n; i++)
		sum = (sum ^ p[i]) * 1099511628211ULL;
	return sum;
}

NOINLINE unsigned parse_record(const unsigned char *p, unsigned n)
{
	unsigned fields = 0;

	for (unsigned i = 0; i < n; i++)
		fields += p[i] == ',' || p[i] == '\n';
	return fields;
}

NOINLINE unsigned hash_lookup(unsigned key)
{
	unsigned slot = key * 2654435761u;

	for (int probe = 0; probe < 8; probe++)
		if (demo_buffer[(slot + (unsigned)probe) & 4095] == (unsigned char)key)
			return slot + (unsigned)probe;
	return 0;
}

NOINLINE void copy_bytes(unsigned char *to, const unsigned char *from, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		to[i] = from[i];
}

int main(void)
{
	for (unsigned round = 0; round < 1000; round++) {
		copy_bytes(demo_copy, demo_buffer, sizeof(demo_buffer));
		demo_sink += checksum_block(demo_copy, sizeof(demo_copy));
		demo_sink += parse_record(demo_buffer, sizeof(demo_buffer));
		demo_sink += hash_lookup(round);
	}
	return 0;
}
