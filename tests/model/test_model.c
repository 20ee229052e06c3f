/* test_model.c - interning, aggregation, overflow and finalize order. */
#include "model/model.h"
#include "base/sort.h"
#include "model/copy.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

static int setup(void **state)
{
	*state = pc_model_new();
	return 0;
}

static int teardown(void **state)
{
	pc_model_free(*state);
	return 0;
}

static void test_strings_interned_with_empty_id_zero(void **state)
{
	struct pc_model *m = *state;
	pc_str_id a = pc_model_intern_cstr(m, "main");
	pc_str_id b = pc_model_intern(m, "main!", 4);
	pc_str_id nul = pc_model_intern(m, "a\0b", 3);

	assert_int_equal(pc_model_intern_cstr(m, ""), 0);
	assert_string_equal(pc_str(m, 0), "");
	assert_int_equal(a, b);
	assert_int_not_equal(a, 0);
	assert_int_not_equal(nul, a);
	assert_int_equal(pc_str_len(m, nul), 3);
	assert_memory_equal(pc_str(m, nul), "a\0b", 4);
}

static void test_many_strings_survive_index_growth(void **state)
{
	struct pc_model *m = *state;
	char name[32];

	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "fn_%d", i);
		assert_int_equal(pc_model_intern_cstr(m, name), (pc_str_id)(i + 1));
	}
	for (int i = 0; i < 5000; i += 97) {
		snprintf(name, sizeof(name), "fn_%d", i);
		assert_int_equal(pc_model_intern_cstr(m, name), (pc_str_id)(i + 1));
		assert_string_equal(pc_str(m, (pc_str_id)(i + 1)), name);
	}
}

static uint32_t frame_at(struct pc_model *m, uint32_t module, uint64_t address)
{
	struct pc_frame frame = {
		.module = module, .flags = PC_FRAME_HAS_ADDRESS, .address = address,
	};

	return pc_model_add_frame(m, &frame);
}

static void test_modules_keyed_by_name_and_build_id(void **state)
{
	struct pc_model *m = *state;
	struct pc_module a = { .name = pc_model_intern_cstr(m, "a.exe"),
			       .build_id = pc_model_intern_cstr(m, "01") };
	struct pc_module a2 = a;
	uint32_t id = pc_model_add_module(m, &a);

	a2.build_id = pc_model_intern_cstr(m, "02");
	assert_int_equal(id, 1);
	assert_int_equal(pc_model_add_module(m, &a), 1);
	assert_int_equal(pc_model_add_module(m, &a2), 2);
	a.has_range = true;
	a.start = 0x2000;
	a.limit = 0x3000;
	pc_model_add_module(m, &a);
	a.start = 0x1000;
	a.limit = 0x2800;
	pc_model_add_module(m, &a);
	assert_true(pc_model_module(m, 1)->has_range);
	assert_int_equal(pc_model_module(m, 1)->start, 0x1000);
	assert_int_equal(pc_model_module(m, 1)->limit, 0x3000);
}

static void test_frames_and_stacks_interned(void **state)
{
	struct pc_model *m = *state;
	uint32_t f1 = frame_at(m, 0, 0x10), f2 = frame_at(m, 0, 0x20);
	uint32_t stack[] = { f1, f2 };
	uint32_t reversed[] = { f2, f1 };
	size_t n;

	assert_int_equal(frame_at(m, 0, 0x10), f1);
	assert_int_not_equal(f1, f2);
	assert_int_equal(pc_model_add_stack(m, NULL, 0), 0);
	assert_int_equal(pc_model_add_stack(m, stack, 2), 1);
	assert_int_equal(pc_model_add_stack(m, stack, 2), 1);
	assert_int_equal(pc_model_add_stack(m, reversed, 2), 2);
	assert_int_equal(pc_model_add_stack(m, stack, 1), 3);
	assert_int_equal(pc_model_stack(m, 2, &n)[0], f2);
	assert_int_equal(n, 2);
	pc_model_stack(m, 0, &n);
	assert_int_equal(n, 0);
}

/*
 * pc_model_add_frames gives the ids pc_model_add_frame would: over more
 * than one batch, with repeats inside a batch, known frames and frames
 * appended without the index.
 */
static void test_frames_added_in_batches(void **state)
{
	struct pc_model *m = *state;
	struct pc_frame frames[100];
	uint32_t ids[100], known = frame_at(m, 0, 0x1005), appended;
	struct pc_frame tail = { .flags = PC_FRAME_HAS_ADDRESS, .address = 0x1007 };

	appended = pc_model_append_frame(m, &tail);
	for (size_t i = 0; i < 100; i++)
		frames[i] = (struct pc_frame){ .module = 0, .flags = PC_FRAME_HAS_ADDRESS,
					       .address = 0x1000 + i % 40 };
	pc_model_add_frames(m, frames, 100, ids);
	assert_int_equal(pc_model_nframes(m), 40);
	assert_int_equal(ids[5], known);
	assert_int_equal(ids[47], appended);
	for (size_t i = 0; i < 100; i++) {
		assert_int_equal(ids[i], ids[i % 40]);
		assert_int_equal(pc_model_add_frame(m, &frames[i]), ids[i]);
		assert_int_equal(pc_model_frame(m, ids[i])->address, 0x1000 + i % 40);
	}
	pc_model_add_frames(m, frames, 0, ids);
	assert_int_equal(pc_model_nframes(m), 40);
}

static void test_label_sets_sorted_by_key(void **state)
{
	struct pc_model *m = *state;
	struct pc_label tid = { .key = pc_model_intern_cstr(m, "tid"), .num = 7,
				.unit = pc_model_intern_cstr(m, "tid") };
	struct pc_label comm = { .key = pc_model_intern_cstr(m, "comm"),
				 .str = pc_model_intern_cstr(m, "bash") };
	struct pc_label one_order[] = { tid, comm }, other_order[] = { comm, tid };
	uint32_t set = pc_model_add_labels(m, one_order, 2);
	const uint32_t *ids;
	size_t n;

	assert_int_equal(pc_model_add_labels(m, other_order, 2), set);
	ids = pc_model_labelset(m, set, &n);
	assert_int_equal(n, 2);
	assert_string_equal(pc_str(m, pc_model_label(m, ids[0])->key), "comm");
	assert_int_equal(pc_model_label(m, ids[1])->num, 7);
}

static void test_branches_keep_order(void **state)
{
	struct pc_model *m = *state;
	struct pc_branch branches[] = {
		{ .from = frame_at(m, 0, 1), .to = frame_at(m, 0, 2) },
		{ .from = frame_at(m, 0, 3), .to = frame_at(m, 0, 4) },
	};
	uint32_t id = pc_model_add_branches(m, branches, 2);
	const uint32_t *pairs;
	size_t n;

	pairs = pc_model_branch_stack(m, id, &n);
	assert_int_equal(n, 2);
	assert_int_equal(pairs[0], branches[0].from);
	assert_int_equal(pairs[1], branches[0].to);
	assert_int_equal(pairs[3], branches[1].to);
}

static void test_samples_merge_and_columns_grow(void **state)
{
	struct pc_model *m = *state;
	uint32_t f = frame_at(m, 0, 0x40);
	struct pc_sample s = { .stack = pc_model_add_stack(m, &f, 1) };
	char name[16];

	assert_int_equal(pc_model_add_column(m, "a", "count"), 0);
	assert_int_equal(pc_model_add_sample(m, &s, 0, 5), 0);
	assert_int_equal(pc_model_add_sample(m, &s, 0, 6), 0);
	for (int c = 1; c < 10; c++) {
		snprintf(name, sizeof(name), "c%d", c);
		assert_int_equal(pc_model_add_column(m, name, "count"), c);
		assert_int_equal(pc_model_add_sample(m, &s, (size_t)c, (uint64_t)c), 0);
	}
	assert_int_equal(pc_model_add_column(m, "a", "count"), 0);
	assert_int_equal(pc_model_nsamples(m), 1);
	assert_int_equal(pc_model_values(m, 0)[0], 11);
	assert_int_equal(pc_model_values(m, 0)[9], 9);
	assert_int_equal(pc_model_add_sample(m, &s, 10, 1), -1);
}

/* --event resolves by role and event, then by column name; roles are data. */
static void test_pick_column_by_role_and_event(void **state)
{
	struct pc_model *m = *state;
	int cycles_samples = pc_model_add_event_column(m, "cycles_sample", "count", "cycles",
						       PC_ROLE_SAMPLES);
	int cycles_weight = pc_model_add_event_column(m, "cycles_event", "count", "cycles",
						      PC_ROLE_WEIGHT);
	int faults = pc_model_add_event_column(m, "page-faults_sample", "count", "page-faults",
					       PC_ROLE_SAMPLES);
	int lbr = pc_model_add_event_column(m, "lbr_branch", "count", "lbr_branch",
					    PC_ROLE_BRANCHES);

	assert_int_equal(pc_model_pick_column(m, "cycles", PC_ROLE_SAMPLES), cycles_samples);
	assert_int_equal(pc_model_pick_column(m, "cycles", PC_ROLE_WEIGHT), cycles_weight);
	/* no weight column: the event's samples; an exact name wins over roles */
	assert_int_equal(pc_model_pick_column(m, "page-faults", PC_ROLE_WEIGHT), faults);
	assert_int_equal(pc_model_pick_column(m, "cycles_sample", PC_ROLE_WEIGHT), cycles_samples);
	assert_int_equal(pc_model_pick_column(m, "lbr_branch", PC_ROLE_SAMPLES), lbr);
	assert_int_equal(pc_model_pick_column(m, "instructions", PC_ROLE_SAMPLES), -1);
	assert_int_equal(pc_model_find_column(m, PC_ROLE_BRANCHES, 0), lbr);
	assert_int_equal(pc_model_find_column(m, PC_ROLE_STACKS, 0), -1);
	assert_int_equal(pc_model_column(m, (size_t)cycles_weight)->event,
			 pc_model_column(m, (size_t)cycles_samples)->event);
	pc_model_set_default_column(m, cycles_weight);
	assert_int_equal(pc_model_pick_column(m, NULL, PC_ROLE_SAMPLES), cycles_weight);
}

/*
 * Appending adds from's strings, frames, stacks and samples as reading its
 * input after into's would: new entries of each table in from's order,
 * known ones mapped to into's ids; the maps say where columns and stacks
 * went, and from is used up.
 */
static void test_append_keeps_order(void **state)
{
	struct pc_model *into = *state, *from = pc_model_new();
	struct pc_frame fa = { .function = pc_model_intern_cstr(into, "a") };
	uint32_t a = pc_model_add_frame(into, &fa), f[3], *stack_map;
	struct pc_sample s = { .stack = pc_model_add_stack(into, &a, 1) };
	int column_map[PC_MAX_COLUMNS];
	char message[100];

	pc_model_add_column(into, "x", "count");
	assert_int_equal(pc_model_add_sample(into, &s, 0, 1), 0);
	pc_model_add_column(from, "y", "count");
	pc_model_add_column(from, "x", "count");
	for (int i = 0; i < 3; i++) { /* functions c, a, d */
		struct pc_frame fr = { .function = pc_model_intern_cstr(from, (const char *[]){
							       "c", "a", "d" }[i]) };

		f[i] = pc_model_add_frame(from, &fr);
	}
	s.stack = pc_model_add_stack(from, f, 3); /* from's stack 1: c a d */
	assert_int_equal(pc_model_add_sample(from, &s, 1, 4), 0);
	s.stack = pc_model_add_stack(from, &f[1], 1); /* from's stack 2: a, into's 1 */
	assert_int_equal(pc_model_add_sample(from, &s, 0, 2), 0);
	assert_int_equal(pc_model_append(into, from, column_map, &stack_map, 2, message,
					 sizeof(message)), 0);
	/* into's "", a, x, count; then from's new ones in from's order: y, c, d */
	assert_int_equal(pc_model_nstrings(into), 7);
	assert_int_equal(pc_model_find_string(into, "y", 1), 4);
	assert_int_equal(pc_model_find_string(into, "c", 1), 5);
	assert_int_equal(pc_model_find_string(into, "d", 1), 6);
	assert_int_equal(pc_model_nframes(into), 3); /* a, then c and d in from's order */
	assert_int_equal(pc_model_frame(into, 2)->function, pc_model_find_string(into, "c", 1));
	assert_int_equal(pc_model_frame(into, 3)->function, pc_model_find_string(into, "d", 1));
	assert_int_equal(column_map[0], 1);
	assert_int_equal(column_map[1], 0);
	assert_int_equal(stack_map[1], 2);
	assert_int_equal(stack_map[2], 1);
	assert_int_equal(pc_model_nsamples(into), 2);
	assert_int_equal(pc_model_values(into, 0)[0], 1); /* stack a: x 1, y 2 (from's column 0) */
	assert_int_equal(pc_model_values(into, 0)[1], 2);
	assert_int_equal(pc_model_values(into, 1)[0], 4); /* stack c a d: x 4 */
	assert_int_equal(pc_model_values(into, 1)[1], 0);
	free(stack_map);
	pc_model_free(from);
}

/*
 * A model of n of everything, as a reader of seed's input would make it:
 * strings, modules named late (their name ids high), frames with system
 * names, stacks, label sets, branch stacks, and samples in two columns
 * with their times.
 */
static struct pc_model *append_model(unsigned seed, int n)
{
	struct pc_model *m = pc_model_new();
	uint32_t modules[3] = { 0 }, frames[8];
	char text[64];

	pc_model_add_column(m, seed ? "cycles" : "samples", "count"); /* mapped across */
	pc_model_add_column(m, seed ? "samples" : "cycles", "count");
	pc_model_keep_times(m);
	for (int i = 0; i < n; i++) {
		unsigned r = (unsigned)i * 2654435761u + seed;
		struct pc_frame frame = { .address = r % 977 };
		struct pc_label label = {
			.key = pc_model_intern_cstr(m, "comm"),
			.str = pc_model_intern(m, text, (size_t)snprintf(text, sizeof(text), "p%u", r % 13)),
		};
		struct pc_branch branch = { 0 };
		struct pc_sample sample = { 0 };
		size_t depth = 1 + r % 8;

		if (i % (n / 3) == n / 3 - 1) { /* a module named after a third of the strings */
			struct pc_module module = { .name = pc_model_intern(
				m, text, (size_t)snprintf(text, sizeof(text), "/lib%d-%u.so", i, seed)) };

			modules[i / (n / 3) % 3] = pc_model_add_module(m, &module);
		}
		for (size_t d = 0; d < depth; d++) {
			frame.function = pc_model_intern(m, text, (size_t)snprintf(text, sizeof(text),
					 "f%u", (r >> d) % 3001));
			frame.module = modules[(r + d) % 3];
			frame.address += d;
			frames[d] = pc_model_add_frame(m, &frame);
			if ((r + d) % 5 == 0)
				pc_model_set_system_name(m, frames[d], pc_model_intern(m, text,
					(size_t)snprintf(text, sizeof(text), "_Z%u", r % 4001)));
		}
		sample.stack = pc_model_add_stack(m, frames, depth);
		sample.labels = pc_model_add_labels(m, &label, 1);
		if (r % 3 == 0) {
			branch = (struct pc_branch){ frames[0], frames[depth - 1] };
			sample.branches = pc_model_add_branches(m, &branch, 1);
		}
		assert_int_equal(pc_model_add_timed_sample(m, &sample, r % 2, 1 + r % 7,
							   (int64_t)i), 0);
	}
	return m;
}

/* Every table of a and b holds the same entries in the same order. */
static void assert_same_models(const struct pc_model *a, const struct pc_model *b)
{
	size_t na, nb;

	assert_int_equal(pc_model_nstrings(a), pc_model_nstrings(b));
	for (uint32_t i = 1; i < pc_model_nstrings(a); i++)
		assert_string_equal(pc_str(a, i), pc_str(b, i));
	assert_int_equal(pc_model_nmodules(a), pc_model_nmodules(b));
	for (uint32_t i = 1; i <= pc_model_nmodules(a); i++)
		assert_int_equal(pc_model_module(a, i)->name, pc_model_module(b, i)->name);
	assert_int_equal(pc_model_nframes(a), pc_model_nframes(b));
	for (uint32_t i = 1; i <= pc_model_nframes(a); i++) {
		pc_str_id sa = 0, sb = 0;

		assert_memory_equal(pc_model_frame(a, i), pc_model_frame(b, i), sizeof(struct pc_frame));
		assert_int_equal(pc_model_system_name(a, i, &sa), pc_model_system_name(b, i, &sb));
		assert_int_equal(sa, sb);
	}
	assert_int_equal(pc_model_nstacks(a), pc_model_nstacks(b));
	for (uint32_t i = 1; i <= pc_model_nstacks(a); i++) {
		const uint32_t *fa = pc_model_stack(a, i, &na), *fb = pc_model_stack(b, i, &nb);

		assert_int_equal(na, nb);
		assert_memory_equal(fa, fb, na * sizeof(*fa));
	}
	assert_int_equal(pc_model_nlabelsets(a), pc_model_nlabelsets(b));
	assert_int_equal(pc_model_nbranch_stacks(a), pc_model_nbranch_stacks(b));
	for (uint32_t i = 1; i <= pc_model_nbranch_stacks(a); i++) {
		const uint32_t *pa = pc_model_branch_stack(a, i, &na);
		const uint32_t *pb = pc_model_branch_stack(b, i, &nb);

		assert_int_equal(na, nb);
		assert_memory_equal(pa, pb, 2 * na * sizeof(*pa));
	}
	assert_int_equal(pc_model_nsamples(a), pc_model_nsamples(b));
	assert_int_equal(pc_model_ncolumns(a), pc_model_ncolumns(b));
	for (size_t i = 0; i < pc_model_nsamples(a); i++) {
		assert_memory_equal(pc_model_sample(a, i), pc_model_sample(b, i),
				    sizeof(struct pc_sample));
		assert_memory_equal(pc_model_values(a, i), pc_model_values(b, i),
				    pc_model_ncolumns(a) * sizeof(uint64_t));
	}
	assert_int_equal(pc_model_ntimed(a), pc_model_ntimed(b));
	for (size_t i = 0; i < pc_model_ntimed(a); i++)
		assert_memory_equal(pc_model_timed(a, i), pc_model_timed(b, i),
				    sizeof(struct pc_timed_sample));
}

/*
 * Appending on two lanes at once (each waiting for the other's maps) and
 * one after the other gives the same model, stack map and column map, on
 * models past the lanes' batch sizes.
 */
static void test_append_lanes_agree(void **state)
{
	struct pc_model *into[2], *from;
	uint32_t *stack_map[2];
	size_t from_stacks = 0;
	int column_map[2][PC_MAX_COLUMNS];
	char message[100];

	(void)state;
	for (unsigned threads = 1; threads <= 2; threads++) {
		into[threads - 1] = append_model(0, 3000);
		from = append_model(7, 6000);
		from_stacks = pc_model_nstacks(from);
		assert_int_equal(pc_model_append(into[threads - 1], from, column_map[threads - 1],
						 &stack_map[threads - 1], threads, message,
						 sizeof(message)), 0);
		pc_model_free(from);
	}
	assert_same_models(into[0], into[1]);
	assert_true(pc_model_nstrings(into[0]) > 5000);
	assert_true(pc_model_nbranch_stacks(into[0]) > 1000);
	assert_memory_equal(column_map[0], column_map[1], sizeof(column_map[0]));
	assert_memory_equal(stack_map[0], stack_map[1], (from_stacks + 1) * sizeof(uint32_t));
	for (int i = 0; i < 2; i++) {
		free(stack_map[i]);
		pc_model_free(into[i]);
	}
}

/*
 * A model with no frames whose stack and branch stack hold frame id 0
 * (none): lane one maps them without waiting for lane two, which must
 * not matter (the frame map is there from the start).
 */
static void test_append_lanes_frame_zero(void **state)
{
	for (unsigned threads = 1; threads <= 2; threads++) {
		struct pc_model *into = pc_model_new(), *from = pc_model_new();
		uint32_t none = 0, *stack_map;
		struct pc_branch branch = { 0, 0 };
		struct pc_sample s = { 0 };
		int column_map[PC_MAX_COLUMNS];
		char message[100];

		(void)state;
		pc_model_add_column(into, "x", "count");
		pc_model_add_column(from, "x", "count");
		s.stack = pc_model_add_stack(from, &none, 1);
		s.branches = pc_model_add_branches(from, &branch, 1);
		assert_int_equal(pc_model_add_sample(from, &s, 0, 3), 0);
		assert_int_equal(pc_model_append(into, from, column_map, &stack_map, threads,
						 message, sizeof(message)), 0);
		assert_int_equal(pc_model_nsamples(into), 1);
		assert_int_equal(pc_model_values(into, 0)[0], 3);
		assert_int_equal(pc_model_nbranch_stacks(into), 1);
		free(stack_map);
		pc_model_free(from);
		pc_model_free(into);
	}
}

/* Merging keeps every sample, one whose counts are all zero too. */
static void test_merge_keeps_zero_samples(void **state)
{
	struct pc_model *from = *state, *into = pc_model_new();
	uint32_t f = frame_at(from, 0, 0x40), g = frame_at(from, 0, 0x50);
	struct pc_sample zero = { .stack = pc_model_add_stack(from, &f, 1) };
	struct pc_sample five = { .stack = pc_model_add_stack(from, &g, 1) };
	char message[100];

	pc_model_add_column(from, "a", "count");
	pc_model_add_column(from, "b", "count");
	assert_int_equal(pc_model_add_sample(from, &zero, 1, 0), 0);
	assert_int_equal(pc_model_add_sample(from, &five, 1, 5), 0);
	pc_model_finalize(from);
	assert_int_equal(pc_model_merge(into, from, message, sizeof(message)), 0);
	pc_model_finalize(into);
	assert_int_equal(pc_model_nsamples(into), 2);
	assert_int_equal(pc_model_values(into, 0)[0] + pc_model_values(into, 0)[1] +
			 pc_model_values(into, 1)[0] + pc_model_values(into, 1)[1], 5);
	pc_model_free(into);
}

/*
 * Kept times follow their samples through finalize (time order, finalized
 * indexes) and a merge; a filtered merge keeps the marked samples, hides
 * marked frames and, by time, counts only the kept timed samples.
 */
static void test_times_follow_samples_and_filters(void **state)
{
	struct pc_model *from = *state, *into = pc_model_new(), *cut = pc_model_new();
	uint32_t f = frame_at(from, 0, 0x50), g = frame_at(from, 0, 0x40), fg[2] = { f, g };
	struct pc_sample late = { .stack = pc_model_add_stack(from, fg, 2) };
	struct pc_sample early = { .stack = pc_model_add_stack(from, &g, 1) };
	uint8_t hidden[3] = { 0 }, timed_kept[3] = { 1, 0, 1 };
	struct pc_merge_filter filter = { .frame_hidden = hidden, .timed_kept = timed_kept };
	char message[100];
	size_t n;

	pc_model_add_column(from, "samples", "count");
	pc_model_keep_times(from);
	assert_int_equal(pc_model_add_timed_sample(from, &late, 0, 1, 300), 0);
	assert_int_equal(pc_model_add_timed_sample(from, &early, 0, 2, 100), 0);
	assert_int_equal(pc_model_add_timed_sample(from, &late, 0, 1, 200), 0);
	pc_model_finalize(from);
	assert_int_equal(pc_model_ntimed(from), 3);
	for (size_t i = 0; i < 3; i++) {
		const struct pc_timed_sample *t = pc_model_timed(from, i);
		const uint32_t *frames = pc_model_stack(from, pc_model_sample(from, t->sample)->stack,
							&n);

		assert_int_equal(t->time, 100 * (int64_t)(i + 1));
		assert_int_equal(n, i ? 2 : 1); /* finalize numbers stacks again: by content */
		assert_int_equal(frames[0], i ? f : g);
	}
	assert_int_equal(pc_model_merge(into, from, message, sizeof(message)), 0);
	pc_model_finalize(into);
	assert_int_equal(pc_model_ntimed(into), 3);
	assert_int_equal(pc_model_timed(into, 2)->time, 300);

	hidden[g] = 1; /* g out of every stack; early is left with none */
	assert_int_equal(pc_model_merge_filtered(cut, from, &filter, message, sizeof(message)), 0);
	pc_model_finalize(cut);
	assert_int_equal(pc_model_ntimed(cut), 2);
	assert_int_equal(pc_model_nsamples(cut), 2);
	for (size_t i = 0; i < 2; i++) {
		const struct pc_sample *s = pc_model_sample(cut, i);

		pc_model_stack(cut, s->stack, &n);
		assert_int_equal(n, s->stack ? 1 : 0);
		assert_int_equal(pc_model_values(cut, i)[0], s->stack ? 1 : 2);
	}
	pc_model_free(cut);
	pc_model_free(into);
}

/*
 * A start line tells frames apart; a system name is the frame's own and
 * follows it through a merge; a comment's text is kept byte for byte.
 */
static void test_start_line_system_name_and_comment_text(void **state)
{
	struct pc_model *from = *state, *into = pc_model_new();
	struct pc_frame fr = { .function = pc_model_intern_cstr(from, "f"), .start_line = 3 };
	uint32_t a = pc_model_add_frame(from, &fr), b, merged;
	struct pc_sample s;
	pc_str_id name;
	char message[100];

	fr.start_line = 4;
	b = pc_model_add_frame(from, &fr);
	assert_int_not_equal(a, b);
	fr.start_line = 3;
	assert_int_equal(pc_model_add_frame(from, &fr), a);
	assert_false(pc_model_system_name(from, a, &name));
	pc_model_set_system_name(from, a, pc_model_intern_cstr(from, "_Z1fv"));
	pc_model_set_system_name(from, b, 0); /* "": a name of its own too */
	assert_true(pc_model_system_name(from, a, &name));
	assert_string_equal(pc_str(from, name), "_Z1fv");
	assert_true(pc_model_system_name(from, b, &name));
	assert_int_equal(name, 0);
	pc_model_add_comment_text(from, "a\0b", 3);
	pc_model_add_column(from, "samples", "count");
	s = (struct pc_sample){ .stack = pc_model_add_stack(from, &a, 1) };
	assert_int_equal(pc_model_add_sample(from, &s, 0, 1), 0);
	pc_model_finalize(from);
	assert_int_equal(pc_str_len(from, pc_model_comment(from, 0)), 3);
	assert_int_equal(pc_model_merge(into, from, message, sizeof(message)), 0);
	pc_model_finalize(into);
	merged = pc_model_stack(into, pc_model_sample(into, 0)->stack, &(size_t){ 0 })[0];
	assert_int_equal(pc_model_frame(into, merged)->start_line, 3);
	assert_true(pc_model_system_name(into, merged, &name));
	assert_string_equal(pc_str(into, name), "_Z1fv");
	pc_model_free(into);
}

static void test_count_overflow_refused(void **state)
{
	struct pc_model *m = *state;
	struct pc_sample s = { 0 };

	pc_model_add_column(m, "samples", "count");
	assert_int_equal(pc_model_add_sample(m, &s, 0, PC_COUNT_MAX), 0);
	assert_int_equal(pc_model_add_sample(m, &s, 0, 1), -1);
	assert_int_equal(pc_model_values(m, 0)[0], PC_COUNT_MAX);
	assert_int_equal(pc_model_add_arc(m, 1, 2, PC_ARC_CALL, PC_COUNT_MAX), 0);
	assert_int_equal(pc_model_add_arc(m, 1, 2, PC_ARC_CALL, 1), -1);
}

/* Counts go to their columns of one sample, with its time, or none when one cannot. */
static void test_add_sample_counts(void **state)
{
	struct pc_model *m = *state;
	uint32_t f = frame_at(m, 0, 0x40);
	struct pc_sample s = { .stack = pc_model_add_stack(m, &f, 1) };
	struct pc_column_count counts[2] = { { 0, 1 }, { 1, 1000 } };
	int64_t time = 42;

	pc_model_keep_times(m);
	pc_model_add_column(m, "samples", "count");
	pc_model_add_column(m, "cpu", "nanoseconds");
	assert_int_equal(pc_model_add_sample_counts(m, &s, counts, 2, &time), 0);
	assert_int_equal(pc_model_add_sample_counts(m, &s, counts, 2, NULL), 0);
	assert_int_equal(pc_model_nsamples(m), 1);
	assert_int_equal(pc_model_values(m, 0)[0], 2);
	assert_int_equal(pc_model_values(m, 0)[1], 2000);
	assert_int_equal(pc_model_ntimed(m), 2);
	assert_int_equal(pc_model_timed(m, 0)->column, 0);
	assert_int_equal(pc_model_timed(m, 1)->column, 1);
	assert_int_equal(pc_model_timed(m, 1)->count, 1000);
	assert_int_equal(pc_model_timed(m, 1)->time, 42);
	counts[1].count = PC_COUNT_MAX; /* the second passes the limit: neither is added */
	assert_int_equal(pc_model_add_sample_counts(m, &s, counts, 2, &time), -1);
	counts[1] = (struct pc_column_count){ 2, 1 }; /* no such column */
	assert_int_equal(pc_model_add_sample_counts(m, &s, counts, 2, &time), -1);
	assert_int_equal(pc_model_values(m, 0)[0], 2);
	assert_int_equal(pc_model_values(m, 0)[1], 2000);
	assert_int_equal(pc_model_ntimed(m), 2);
}

static void test_column_limit(void **state)
{
	struct pc_model *m = *state;
	char name[16];

	for (int c = 0; c < PC_MAX_COLUMNS; c++) {
		snprintf(name, sizeof(name), "c%d", c);
		assert_int_equal(pc_model_add_column(m, name, "count"), c);
	}
	assert_int_equal(pc_model_add_column(m, "one-more", "count"), -1);
}

/* Two models fed the same samples in opposite orders finalize identically. */
static void fill(struct pc_model *m, bool reverse)
{
	static const uint64_t addresses[] = { 0x30, 0x10, 0x20, 0x10 };
	struct pc_module module = { .name = pc_model_intern_cstr(m, "x.dll") };
	uint32_t mod = pc_model_add_module(m, &module);

	pc_model_add_column(m, "samples", "count");
	for (size_t k = 0; k < PC_ARRAY_SIZE(addresses); k++) {
		size_t i = reverse ? PC_ARRAY_SIZE(addresses) - 1 - k : k;
		uint32_t f = frame_at(m, mod, addresses[i]);
		struct pc_sample s = { .stack = pc_model_add_stack(m, &f, 1) };

		pc_model_add_sample(m, &s, 0, i + 1);
		pc_model_add_arc(m, f, f, PC_ARC_BRANCH, 1);
	}
	pc_model_finalize(m);
}

static void test_finalize_orders_by_content(void **state)
{
	struct pc_model *a = *state, *b = pc_model_new();
	size_t n;

	fill(a, false);
	fill(b, true);
	assert_int_equal(pc_model_nsamples(a), 3);
	assert_int_equal(pc_model_default_column(a), 0);
	for (size_t i = 0; i < pc_model_nsamples(a); i++) {
		uint64_t addr_a = pc_model_frame(a, pc_model_stack(a, pc_model_sample(a, i)->stack, &n)[0])->address;
		uint64_t addr_b = pc_model_frame(b, pc_model_stack(b, pc_model_sample(b, i)->stack, &n)[0])->address;

		assert_int_equal(addr_a, addr_b);
		assert_int_equal(pc_model_values(a, i)[0], pc_model_values(b, i)[0]);
	}
	assert_int_equal(pc_model_frame(a, pc_model_stack(a, pc_model_sample(a, 0)->stack, &n)[0])->address, 0x10);
	assert_int_equal(pc_model_values(a, 0)[0], 2 + 4);
	assert_int_equal(pc_model_frame(a, pc_model_arc(a, 2)->from)->address, 0x30);
	/* the index still finds merged samples after reordering */
	struct pc_sample again = *pc_model_sample(a, 1);
	assert_int_equal(pc_model_add_sample(a, &again, 0, 1), 0);
	assert_int_equal(pc_model_nsamples(a), 3);
	pc_model_free(b);
}

static void test_tally_sums_per_sequence(void **state)
{
	struct pc_tally tally;
	uint32_t a[] = { 1, 2, 3 }, b[] = { 1, 2 };
	size_t n;

	(void)state;
	pc_tally_init(&tally);
	assert_int_equal(pc_tally_add(&tally, a, 3, 5), 0);
	assert_int_equal(pc_tally_add(&tally, b, 2, 1), 0);
	assert_int_equal(pc_tally_add(&tally, a, 3, 2), 0);
	assert_int_equal(tally.keys.count, 3); /* the empty sequence, a, b */
	assert_int_equal(tally.counts[1], 7);
	assert_int_equal(pc_seq(&tally.keys, 2, &n)[1], 2);
	assert_int_equal(n, 2);
	assert_int_equal(pc_tally_add(&tally, b, 2, PC_COUNT_MAX), -1);
	assert_int_equal(tally.counts[2], 1);
	pc_tally_release(&tally);
}

static void test_metadata(void **state)
{
	struct pc_model *m = *state;

	pc_model_add_source(m, "spt");
	pc_model_add_source(m, "spt");
	pc_model_add_comment(m, "SPT v%d", 1);
	pc_model_add_fact(m, "version", "1");
	assert_int_equal(pc_model_nsources(m), 1);
	assert_string_equal(pc_str(m, pc_model_comment(m, 0)), "SPT v1");
	assert_string_equal(pc_str(m, pc_model_fact(m, 0)->value), "1");
}

/*
 * Finalize numbers the stacks in the order the sorted samples first use
 * them, a stack no sample uses after those, and each sample keeps its
 * frames.
 */
static void test_finalize_numbers_stacks_in_sample_order(void **state)
{
	struct pc_model *m = *state;
	uint32_t f[4], stacks[4];
	size_t n;

	pc_model_add_column(m, "samples", "count");
	for (uint32_t i = 0; i < 4; i++)
		f[i] = frame_at(m, 0, 0x100 * (4 - i));
	for (uint32_t i = 0; i < 4; i++)
		stacks[i] = pc_model_add_stack(m, &f[i], 1);
	for (uint32_t i = 0; i < 3; i++) /* stacks[3] is used by no sample */
		assert_int_equal(pc_model_add_sample(m, &(struct pc_sample){ .stack = stacks[i] },
						     0, i + 1), 0);
	pc_model_finalize(m);
	assert_int_equal(pc_model_nstacks(m), 4);
	for (size_t i = 0; i < 3; i++) {
		const struct pc_sample *sample = pc_model_sample(m, i);
		const uint32_t *frames = pc_model_stack(m, sample->stack, &n);

		assert_int_equal(sample->stack, i + 1);
		assert_int_equal(n, 1);
		assert_int_equal(frames[0], f[pc_model_values(m, i)[0] - 1]);
	}
	assert_int_equal(pc_model_stack(m, 4, &n)[0], f[3]);
	assert_int_equal(n, 1);
}

static void test_appended_entries_found_by_later_adds(void **state)
{
	struct pc_model *m = *state;
	int col = pc_model_add_column(m, "samples", "count");
	struct pc_frame f = { .module = 0, .flags = PC_FRAME_HAS_ADDRESS };
	uint64_t row[1] = { 5 };
	uint32_t frames[100], stacks[100];

	for (uint32_t i = 0; i < 100; i++) {
		f.address = 0x1000 + i;
		frames[i] = pc_model_append_frame(m, &f);
		stacks[i] = pc_model_append_stack(m, &frames[i], 1);
		pc_model_append_sample(m, &(struct pc_sample){ .stack = stacks[i] }, row);
	}
	assert_int_equal(pc_model_nframes(m), 100);
	assert_int_equal(pc_model_nsamples(m), 100);
	assert_int_equal(pc_model_nvalue_rows(m), 1); /* equal counts share one row */
	/* lookups index what was appended */
	f.address = 0x1000 + 42;
	assert_int_equal(pc_model_add_frame(m, &f), frames[42]);
	assert_int_equal(pc_model_add_stack(m, &frames[42], 1), stacks[42]);
	/* adding to a sample of a shared row copies the row first */
	assert_int_equal(pc_model_add_sample(m, &(struct pc_sample){ .stack = stacks[7] },
					     (size_t)col, 2), 0);
	assert_int_equal(pc_model_nsamples(m), 100);
	assert_int_equal(pc_model_values(m, 7)[0], 7);
	assert_int_equal(pc_model_values(m, 8)[0], 5);
	assert_int_equal(pc_model_add_sample(m, &(struct pc_sample){ .stack = stacks[7] },
					     (size_t)col, 1), 0);
	assert_int_equal(pc_model_values(m, 7)[0], 8);
	assert_int_equal(pc_model_nvalue_rows(m), 2);
	/* a new column widens shared rows too; finalize keeps each sample's counts */
	assert_int_equal(pc_model_add_column(m, "b", "count"), 1);
	assert_int_equal(pc_model_add_column(m, "c", "count"), 2);
	pc_model_finalize(m);
	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		size_t n;
		uint64_t address = pc_model_frame(m, pc_model_stack(m, pc_model_sample(m, i)->stack, &n)[0])->address;

		assert_int_equal(address, 0x1000 + i);
		assert_int_equal(pc_model_values(m, i)[0], i == 7 ? 8 : 5);
		assert_int_equal(pc_model_values(m, i)[2], 0);
	}
	/* after finalize (which drops the indexes) adds still find everything */
	f.address = 0x1000 + 99;
	assert_int_equal(pc_model_add_frame(m, &f), frames[99]);
	assert_int_equal(pc_model_add_sample(m, pc_model_sample(m, 3), (size_t)col, 1), 0);
	assert_int_equal(pc_model_nsamples(m), 100);
	assert_int_equal(pc_model_values(m, 3)[0], 6);
}

static void test_sort_by_keys_is_stable(void **state)
{
	uint32_t order[1000];
	uint64_t keys[1000];

	(void)state;
	for (uint32_t i = 0; i < 1000; i++) {
		order[i] = i;
		/* few distinct keys that differ in high and low bytes */
		keys[i] = (uint64_t)(i * 7919 % 13) << 40 | (i * 104729 % 5);
	}
	pc_sort_by_keys(order, keys, 1000);
	for (uint32_t i = 1; i < 1000; i++) {
		assert_true(keys[i - 1] <= keys[i]);
		if (keys[i - 1] == keys[i])
			assert_true(order[i - 1] < order[i]);
		assert_int_equal(keys[i], (uint64_t)(order[i] * 7919 % 13) << 40 | (order[i] * 104729 % 5));
	}
}

static size_t base_len(const char *event)
{
	return pc_event_base_len(event, strlen(event));
}

/* perf's modifier suffix goes; tracepoints, PMU terms and bare colons stay. */
static void test_event_base_names(void **state)
{
	(void)state;
	assert_int_equal(base_len("cpu-clock:ppp"), strlen("cpu-clock"));
	assert_int_equal(base_len("cycles:u"), strlen("cycles"));
	assert_int_equal(base_len("cycles:uppp"), strlen("cycles"));
	assert_int_equal(base_len("cycles"), strlen("cycles"));
	assert_int_equal(base_len("sched:sched_switch"), strlen("sched:sched_switch"));
	assert_int_equal(base_len("probe:main"), strlen("probe:main"));
	assert_int_equal(base_len("cpu_core/cycles:Pu/"), strlen("cpu_core/cycles:Pu/"));
	assert_int_equal(base_len("cycles:"), strlen("cycles:"));
	assert_int_equal(base_len(":u"), strlen(":u"));
	assert_true(pc_event_is_clock("cpu-clock", 9));
	assert_true(pc_event_is_clock("task-clock:u", 12));
	assert_false(pc_event_is_clock("cpu-clocks", 10));
	assert_false(pc_event_is_clock("cycles", 6));
}

/* A column's unit can be set once its input is read. */
static void test_column_unit_set_later(void **state)
{
	struct pc_model *m = *state;
	int c = pc_model_add_event_column(m, "cpu-clock_event", "count", "cpu-clock",
					  PC_ROLE_WEIGHT);

	pc_model_set_column_unit(m, (size_t)c, "nanoseconds");
	assert_string_equal(pc_str(m, pc_model_column(m, (size_t)c)->unit), "nanoseconds");
	assert_int_equal(pc_model_add_event_column(m, "cpu-clock_event", "count", "cpu-clock",
						   PC_ROLE_WEIGHT), c);
	assert_string_equal(pc_str(m, pc_model_column(m, (size_t)c)->unit), "nanoseconds");
}

/* Modules that name no file a symbolizer could open. */
static void test_module_is_file(void **state)
{
	struct pc_model *m = *state;
	static const char *const files[] = { "/usr/bin/w", "w", "/tmp/perf-data.txt", "/tmp/x.map" };
	static const char *const pseudo[] = { "", "[kernel.kallsyms]", "[vdso]", "//anon",
					      "/memfd:jit code (deleted)", "/tmp/perf-1234.map" };

	for (size_t i = 0; i < PC_ARRAY_SIZE(files); i++) {
		struct pc_module module = { .name = pc_model_intern_cstr(m, files[i]) };

		assert_true(pc_model_module_is_file(m, pc_model_add_module(m, &module)));
	}
	for (size_t i = 0; i < PC_ARRAY_SIZE(pseudo); i++) {
		struct pc_module module = { .name = pc_model_intern_cstr(m, pseudo[i]) };

		assert_false(pc_model_module_is_file(m, pc_model_add_module(m, &module)));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_strings_interned_with_empty_id_zero, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_strings_survive_index_growth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_modules_keyed_by_name_and_build_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frames_and_stacks_interned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frames_added_in_batches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_label_sets_sorted_by_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_branches_keep_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_samples_merge_and_columns_grow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_add_sample_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_count_overflow_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_column_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finalize_orders_by_content, setup, teardown),
		cmocka_unit_test_setup_teardown(test_appended_entries_found_by_later_adds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finalize_numbers_stacks_in_sample_order, setup,
						teardown),
		cmocka_unit_test(test_sort_by_keys_is_stable),
		cmocka_unit_test(test_tally_sums_per_sequence),
		cmocka_unit_test_setup_teardown(test_metadata, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pick_column_by_role_and_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_keeps_zero_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_append_keeps_order, setup, teardown),
		cmocka_unit_test(test_append_lanes_agree),
		cmocka_unit_test(test_append_lanes_frame_zero),
		cmocka_unit_test_setup_teardown(test_times_follow_samples_and_filters, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_start_line_system_name_and_comment_text, setup,
						teardown),
		cmocka_unit_test(test_event_base_names),
		cmocka_unit_test_setup_teardown(test_column_unit_set_later, setup, teardown),
		cmocka_unit_test_setup_teardown(test_module_is_file, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
