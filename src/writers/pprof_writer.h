/*
 * pprof_writer.h - the state of the pprof writer, shared by its two files
 * (private to src/writers/pprof_*.c):
 *   pprof_writer.c  the model mapped onto pprof's messages: sample types,
 *                   locations, functions, mappings, labels, samples,
 *                   comments and metadata (what maps where: at its top)
 *   pprof_encode.c  those messages encoded (samples, locations and
 *                   functions by hand, the rest by protobuf-c) and
 *                   compressed into the output
 */
#ifndef PC_PPROF_WRITER_H
#define PC_PPROF_WRITER_H

#include "model/format.h"
#include "writers/pprof_strings.h"

#define CHAIN (1u << 31) /* location_ref: a chain, not a frame */
#define FUNCTION_KEY 5   /* name, file, module, start line, system name + 1 */
#define OWN (1u << 31)   /* out: an own sample, not a model sample */

/* A model label in the output's string indices. */
struct out_label {
	int64_t key, str, num, unit;
};

/*
 * A PE image known by its RVAs (a module with a PDB id and no load range,
 * as SPT gives it) is placed at a base of its own, mapping id << 40, so
 * that pprof can symbolize it (research/pe-symbolization.md section 1): its
 * locations lie at base + RVA. An RVA below PE_FIRST_SECTION lies in the
 * image's headers, where nothing is code; pprof's symbolizer would shift
 * names onto the next location there, so such a location gets no mapping.
 */
#define PE_BASE_SHIFT 40
#define PE_MAX_MAPPING ((1u << (64 - PE_BASE_SHIFT)) - 1)
#define PE_FIRST_SECTION 0x1000u

/* What the locations of one mapping (model module) have. */
struct mapping_state {
	int64_t filename, build_id;
	uint64_t pe_base;       /* a PE image's base (above), 0 = not one */
	size_t nlocations;
	uint64_t max_address;
	bool any_address, any_inline;
	bool all_functions, all_filenames, all_lines;
};

struct pprof_writer {
	struct pc_ctx *ctx;
	const struct pc_model *m;
	struct string_table strings;

	size_t ncolumns;           /* the model's, and edge_inclusive after them */
	int64_t types[PC_MAX_COLUMNS + 1], units[PC_MAX_COLUMNS + 1];
	int64_t default_type;
	bool edges;                /* caller/callee data: arcs become edge samples */
	size_t nedges;

	/*
	 * Locations, ids 1..nlocations in first use: one physical frame, or a
	 * chain of inlined frames ending in one (innermost first). Their
	 * fields are taken from the model frames when packed.
	 */
	uint32_t *frame_location;  /* model frame -> location of it alone, 0 = not yet */
	uint32_t *frame_function;  /* model frame -> its function, 0 = none yet */
	uint32_t *function_by_name; /* model string -> the first function of that name */
	struct pc_seqs chains;     /* chains of 2 or more frames */
	uint32_t *chain_location;  /* chain id -> location id */
	size_t chain_location_cap;
	uint32_t *location_ref;    /* location id - 1 -> frame id, or CHAIN | chain id */
	size_t nlocations, location_ref_cap;
	struct pc_seqs functions;  /* function id -> its FUNCTION_KEY (function_for_frame) */
	struct mapping_state *mappings; /* per model module */
	uint32_t *mapping_of;      /* model module id -> mapping id ([0] = 0) */
	uint32_t *module_at;       /* mapping id -> model module id ([0] = 0) */
	size_t outside_range;
	size_t in_pe_headers;      /* locations at an RVA below PE_FIRST_SECTION */
	bool pe_build_ids;         /* --pe-build-ids: a PE's PDB id as its build_id */

	struct out_label *labels;  /* the labels of used model label sets */
	size_t nlabels, labels_cap;
	size_t *labelset_first;    /* model label set -> its first label + 1, 0 = not yet */

	/*
	 * Output samples, in order: most are a model sample as it is (its
	 * stack's locations and its counts); a sample that merges others, a
	 * branch edge or a call arc is an own sample with its own counts.
	 * Samples of two locations can merge with any other of the same
	 * locations and labels, so they are found through `pairs`; others
	 * only with the model sample before them (see add_model_sample).
	 */
	uint32_t *out;             /* model sample index, or OWN | own sample index */
	size_t nout, out_cap;
	struct own_sample {
		uint32_t labels;   /* model label set */
		uint32_t stack;    /* model stack, or 0: the locations are loc */
		uint32_t loc[2];
	} *own;
	size_t nown, own_cap;
	int64_t *own_values;       /* rows of ncolumns, by own sample */
	size_t own_values_cap;
	struct pc_seqs pairs;      /* (labels, location, location) -> pair id */
	uint32_t *pair_out;        /* pair id -> output sample index */
	size_t pair_out_cap;
	uint32_t last_stack, last_labels; /* of the model sample before */
	size_t last_out;           /* its output sample, SIZE_MAX = none */
	bool branch_columns[PC_MAX_COLUMNS]; /* columns that got branch edges */
	uint32_t *stack;           /* scratch: a stack's location ids */
	size_t stack_cap;

	int64_t *comments;
	size_t ncomments, comments_cap;
	int64_t period_type, period_unit;
	int64_t drop_frames, keep_frames, doc_url;
	bool from_pprof;           /* every input was pprof (pprof_model_from_pprof) */
};

/* The location ids of a model stack, leaf first, in w->stack; their count. */
size_t pprof_stack_locations(struct pprof_writer *w, uint32_t model_stack);
/* The mapping id and the address of a location whose physical frame is frame. */
uint32_t pprof_location_mapping(const struct pprof_writer *w, const struct pc_frame *frame);
uint64_t pprof_location_address(const struct pprof_writer *w, const struct pc_frame *frame);

/* Encodes the profile w holds, gzip-compressed, into out (pprof_encode.c). */
int pprof_write_gzip(struct pc_ctx *ctx, struct pprof_writer *w, struct pc_output *out);

#endif
