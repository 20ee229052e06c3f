/*
 * templates.cc - C++ recorded by tests/e2e/perf_data.sh: perf demangles
 * these names (without parameter lists in perf 6.1), and the folded output
 * of both readers must show them the same way.
 *
 *   g++ -O1 -g -fno-omit-frame-pointer -o templates templates.cc
 *
 * For about MS milliseconds of CPU time (default 300):
 *   main -> geo::run -> geo::Vec<double, 8>::operator+ (a member operator
 *                       of a class template)
 *                    -> geo::dot<float> and geo::dot<double> (one function
 *                       template instantiated twice)
 *                    -> geo::detail::Accumulator::add (a member of a
 *                       nested namespace's class)
 *                    -> (anonymous namespace)::churn -> std::sort with a
 *                       lambda: libstdc++'s std::__introsort_loop<...>,
 *                       whose demangled name holds parentheses
 *                       ("churn(std::vector<...>&, unsigned long)::{lambda(
 *                       unsigned int, unsigned int)#1}")
 *
 * The dot products start at a moving offset: dot is pure, and the same
 * arguments would let the compiler hoist the call out of its loop. A
 * checksum is printed on standard error (standard output may be
 * `perf record -o -`'s data).
 *
 *   templates [MS]
 */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#define NOINLINE __attribute__((noinline))

namespace geo {

template <typename T, int N> struct Vec {
	T v[N];
	NOINLINE Vec operator+(const Vec &other) const
	{
		Vec sum;
		for (int i = 0; i < N; i++)
			sum.v[i] = v[i] + other.v[i] * (T)0.5;
		return sum;
	}
};

template <typename T> NOINLINE T dot(const T *a, const T *b, int n)
{
	T sum = 0;
	for (int i = 0; i < n; i++)
		sum += a[i] * b[i];
	return sum;
}

namespace detail {
struct Accumulator {
	uint64_t total = 0;
	NOINLINE void add(uint64_t x)
	{
		for (int i = 0; i < 256; i++)
			total = total * 31 + (x ^ (uint64_t)i);
	}
};
} // namespace detail

NOINLINE double run(uint64_t seed);

} // namespace geo

namespace {
NOINLINE uint64_t churn(std::vector<uint32_t> &values, uint64_t seed)
{
	for (auto &value : values) {
		seed = seed * 6364136223846793005u + 1442695040888963407u;
		value = (uint32_t)(seed >> 32);
	}
	std::sort(values.begin(), values.end(),
		  [](uint32_t a, uint32_t b) { return (a ^ 0x5555u) < (b ^ 0x5555u); });
	return seed ^ values[values.size() / 2];
}
} // namespace

double geo::run(uint64_t seed)
{
	static float fa[4096], fb[4096];
	static double da[4096], db[4096];
	static std::vector<uint32_t> values(1024);
	Vec<double, 8> a{}, b{};
	detail::Accumulator acc;
	double result = 0;

	for (int i = 0; i < 4096; i++) {
		fa[i] = (float)(i ^ (int)seed);
		fb[i] = (float)i * 0.25f;
		da[i] = (double)(i + (int)seed);
		db[i] = (double)i * 0.125;
	}
	for (int i = 0; i < 8; i++) {
		a.v[i] = (double)i;
		b.v[i] = (double)(seed % 7);
	}
	for (int r = 0; r < 4000; r++)
		a = a + b;
	for (int r = 0; r < 12; r++) {
		result += (double)dot<float>(fa + (r & 7), fb, 4088);
		result += dot<double>(da + (r & 7), db, 4088);
	}
	for (int r = 0; r < 100; r++)
		acc.add(seed + (uint64_t)r);
	seed = churn(values, seed);
	return result + a.v[3] + (double)(acc.total ^ seed);
}

static long cpu_ms()
{
	timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	long budget = argc > 1 ? std::atol(argv[1]) : 300, start = cpu_ms();
	double sum = 0;
	uint64_t seed = (uint64_t)argc;

	while (cpu_ms() - start < budget)
		sum += geo::run(seed++);
	std::fprintf(stderr, "%g\n", sum);
	return 0;
}
