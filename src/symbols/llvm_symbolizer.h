/*
 * llvm_symbolizer.h - names for addresses of PE (and other) binaries from
 * LLVM's llvm-symbolizer, the one mature reader of PDB files on Linux: run
 * once per batch as a subprocess (Debian's llvm package), queries on its
 * standard input, one JSON answer per query on its output
 * (--output-style=JSON, LLVM 14 and later).
 */
#ifndef PC_LLVM_SYMBOLIZER_H
#define PC_LLVM_SYMBOLIZER_H

#include "base/arena.h"

struct pc_llvm_query {
	const char *path;  /* the binary; no '"' or newline */
	uint64_t address;  /* a virtual address (PE: image base + RVA) */
};

/* One frame of an answer; strings live in the answers' arena. */
struct pc_llvm_frame {
	const char *function, *file; /* "" when unknown */
	uint32_t line;
};

struct pc_llvm_answers {
	struct pc_llvm_frame *frames;
	size_t nframes, frames_cap;
	size_t *first;  /* per query: its frames are frames[first[i] .. first[i + 1]) */
	size_t nqueries, first_cap;
	struct pc_arena strings;
};

/*
 * Asks llvm-symbolizer about n queries: inlined frames too when inlines,
 * names demangled when demangle. The frames of an answer go innermost
 * first, the function that holds the address last; an address it cannot
 * place has none. 0, or -1 with a message in err (err_size bytes): no
 * llvm-symbolizer, it failed, or it answered something else.
 */
int pc_llvm_symbolize(const struct pc_llvm_query *queries, size_t n, bool inlines,
		      bool demangle, struct pc_llvm_answers *answers, char *err, size_t err_size);
void pc_llvm_answers_release(struct pc_llvm_answers *answers);

/*
 * Parses one JSON answer line into answers (appending one query's frames);
 * false if it is not one. Exposed for tests and the fuzzer.
 */
bool pc_llvm_parse_answer(struct pc_llvm_answers *answers, const char *line, size_t len);

#endif
