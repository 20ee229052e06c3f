#!/bin/sh
# dwarf_seeds.sh - writes the seeds of the fuzz_dwarf target into
# tests/fuzz/corpus/dwarf/: small ELF files with DWARF, built here from a
# freestanding C program (and a C++ one) of this script's own, so that
# they may be committed. Each is linked without the C library
# (-nostdlib, its own _start), with 16-byte page alignment and no build
# id, and stripped of everything but its code, data and debug sections:
# 1 to 5 KB each.
#
#   gcc12-O2-dwarf5.elf    gcc -O2 -g: DWARF 5, inline chains two deep,
#                          call sites, a tail call, a work.cold part
#   gcc12-O2-dwarf4.elf    the same with -gdwarf-4 (DW_TAG_GNU_call_site)
#   gcc12-O2-gz.elf        -g -gz=zlib: compressed debug sections
#   gcc12-O2-shared.so     -shared -fPIC: ET_DYN, relative addresses
#   gcc12-O2-object.o      gcc -c: a relocatable object (refused)
#   gcc12-O2-nodebug.elf   no DWARF, a build id (its /usr/lib/debug file is
#                          looked for, not found: refused)
#   g++12-O2-dwarf5.elf    C++: namespaces, a class, linkage names,
#                          DW_AT_specification, a lambda
#   clang14-O2-dwarf5.elf  clang-14 -O2 -g
#   clang14-O2-dwarf4.elf  clang-14 -O2 -gdwarf-4
#   clang14-O2-profiling.elf  -gline-tables-only -fdebug-info-for-profiling:
#                          LLVM's encoded discriminators
#
# usage: tests/fuzz/seeds/dwarf_seeds.sh   (needs gcc-12 or gcc, g++,
# clang-14, strip; x86-64)
set -eu
here=$(cd "$(dirname "$0")/../../.." && pwd)
out=$here/tests/fuzz/corpus/dwarf
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$out"

cat > "$tmp/seed.c" <<'EOF'
/* seed.c - fuzz_dwarf's seed program: inlined calls two deep, direct and
 * tail calls, a loop, a cold path that gcc moves into work.cold. */
typedef unsigned long u64;

static u64 state = 7;

static inline u64 mix(u64 x)
{
	x ^= x >> 13;
	return x * 0x9e3779b97f4a7c15ul;
}

static inline u64 step(u64 x, u64 i)
{
	if (i & 1)
		return mix(x + i);
	return mix(x) ^ i;
}

__attribute__((noinline)) u64 leaf(u64 x)
{
	u64 s = 0;

	for (u64 i = 0; i < (x & 15); i++)
		s += step(x, i);
	return s;
}

__attribute__((noinline, cold)) u64 rare(u64 x)
{
	return x * 3 + state;
}

__attribute__((noinline)) u64 work(u64 n)
{
	u64 s = 0;

	for (u64 i = 0; i < n; i++) {
		s += leaf(s + i);
		if (__builtin_expect(s == 12345, 0))
			s = rare(s);
	}
	return leaf(s); /* a tail call */
}

#ifndef NO_START
void _start(void)
{
	state = work(state + 10);
	for (;;)
		__asm__ volatile("mov $60, %%eax; xor %%edi, %%edi; syscall" ::: "rax", "rdi", "memory");
}
#endif
EOF

cat > "$tmp/seed.cc" <<'EOF'
// seed.cc - fuzz_dwarf's C++ seed: namespaces, a class with out-of-line
// and inline members, a lambda, templates.
typedef unsigned long u64;

namespace outer {
namespace inner {
class Counter {
public:
	explicit Counter(u64 seed) : value(seed) {}
	__attribute__((noinline)) u64 next();
	u64 peek() const { return value ^ (value >> 7); }

private:
	u64 value;
};

u64 Counter::next()
{
	value = value * 6364136223846793005ul + 1442695040888963407ul;
	return peek();
}
} // namespace inner

template <typename F> __attribute__((noinline)) u64 apply(F f, u64 n)
{
	u64 s = 0;

	for (u64 i = 0; i < n; i++)
		s += f(i);
	return s;
}
} // namespace outer

static u64 state = 3;

extern "C" void _start()
{
	outer::inner::Counter c(state);
	u64 r = outer::apply([&c](u64 i) { return c.next() + i; }, state + 5);

	state = r;
	for (;;)
		__asm__ volatile("mov $60, %%eax; xor %%edi, %%edi; syscall" ::: "rax", "rdi", "memory");
}
EOF

# the same bytes on every run, wherever the checkout is: the compilers run
# in the temporary directory (their DW_AT_comp_dir), whose name is not recorded
cd "$tmp"
map="-ffile-prefix-map=$tmp=/seeds"
link="$map -nostdlib -static -Wl,--build-id=none -Wl,-z,norelro -Wl,-z,noseparate-code -Wl,-z,max-page-size=16"
gcc=$(command -v gcc-12 || command -v gcc)

# build NAME COMPILER FLAGS...: compiles and links seed.c (or seed.cc for g++)
build() {
	name=$1
	shift
	"$@" -o "$tmp/$name"
	# keep the code, data and debug sections; drop symbols, .comment, notes
	strip --strip-all -R .comment --keep-section='.debug*' -o "$out/$name" "$tmp/$name"
}

build gcc12-O2-dwarf5.elf "$gcc" -O2 -g $link "$tmp/seed.c"
build gcc12-O2-dwarf4.elf "$gcc" -O2 -gdwarf-4 $link "$tmp/seed.c"
build gcc12-O2-gz.elf "$gcc" -O2 -g -gz=zlib $link "$tmp/seed.c"
build gcc12-O2-shared.so "$gcc" -O2 -g -fPIC -shared -DNO_START -nostdlib \
	-Wl,--build-id=none -Wl,-z,max-page-size=16 $map "$tmp/seed.c"
"$gcc" -O2 -g $map -c -o "$tmp/seed.o" "$tmp/seed.c"
strip --strip-unneeded -R .comment --keep-section='.debug*' --keep-section='.rela.debug*' \
	-o "$out/gcc12-O2-object.o" "$tmp/seed.o"
"$gcc" -O2 $link -Wl,--build-id=sha1 -o "$tmp/nodebug" "$tmp/seed.c"
strip --strip-all -R .comment --keep-section=.note.gnu.build-id -o "$out/gcc12-O2-nodebug.elf" "$tmp/nodebug"
build g++12-O2-dwarf5.elf g++ -O2 -g -fno-exceptions -fno-rtti -fno-asynchronous-unwind-tables \
	$link "$tmp/seed.cc"
build clang14-O2-dwarf5.elf clang-14 -O2 -g $link "$tmp/seed.c"
build clang14-O2-dwarf4.elf clang-14 -O2 -gdwarf-4 $link "$tmp/seed.c"
build clang14-O2-profiling.elf clang-14 -O2 -gline-tables-only -fdebug-info-for-profiling \
	$link "$tmp/seed.c"
ls -l "$out"
