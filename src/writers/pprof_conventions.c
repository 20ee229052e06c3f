/*
 * pprof_conventions.c - what pprof users expect of a profile, decided from
 * the model for the pprof writer (pprof_writer.c): the names of perf's
 * event columns, and which binary is the profiled program (mapping 1).
 *
 * Source: pprof's own CPU profiles (samples/count, cpu/nanoseconds) and
 * perf_data_converter's names and main mapping first, as
 * ../shared/research/pprof.md sections 2.4, 2.8, 4.2, 4.4 and 7.5 give
 * them; issue 15's rules.
 *
 * What maps where:
 *   perf event pair (the SAMPLES and the WEIGHT column of one event)
 *     -> one pair: "samples" and "cpu" (cpu-clock or task-clock in
 *        nanoseconds) or EVENT; several: EVENT_samples and EVENT; EVENT
 *        without perf's modifier suffix (pc_event_base_len) unless two
 *        events then collide. Other columns keep their names, and all do
 *        when a name would be taken twice.
 *   the profiled program
 *     -> the module that perf's command line names (a "perf-command:"
 *        comment: the first word after " -- ", else the first word after
 *        "record" that is no option and names a module; by path or base
 *        name; the one with most leaf samples when several do), else the
 *        module with the most leaf samples in the default column that is a
 *        file (pc_model_module_is_file) and no shared library (.so, .so.N,
 *        .dll, .dylib); the first of equals. None for a profile read from
 *        pprof (every source "pprof"): its mapping 1 stays first.
 */
#include "writers/pprof_conventions.h"

/* ---- sample types ---- */

/*
 * A perf event pair: the SAMPLES and the WEIGHT column of one event, named
 * as pprof users expect (pprof's own CPU profiles, perf_data_converter):
 * with one pair, "samples" and "cpu" (a clock in nanoseconds) or the
 * event; with several, "<event>_samples" and "<event>". The event is
 * named without perf's modifier suffix unless two events then collide.
 */
struct event_pair {
	size_t samples, weight; /* columns */
	const char *event;
	size_t event_len;
	size_t len;             /* of the event's name as shown */
};

static size_t find_event_pairs(const struct pc_model *m, struct event_pair *pairs)
{
	bool collides[PC_MAX_COLUMNS / 2] = { false };
	size_t n = 0;

	for (size_t c = 0; c < pc_model_ncolumns(m); c++) {
		const struct pc_column *column = pc_model_column(m, c);
		int weight;

		if (column->role != PC_ROLE_SAMPLES || !column->event ||
		    pc_model_find_column(m, PC_ROLE_SAMPLES, column->event) != (int)c)
			continue;
		weight = pc_model_find_column(m, PC_ROLE_WEIGHT, column->event);
		if (weight < 0)
			continue;
		pairs[n++] = (struct event_pair){
			.samples = c,
			.weight = (size_t)weight,
			.event = pc_str(m, column->event),
			.event_len = pc_str_len(m, column->event),
			.len = pc_event_base_len(pc_str(m, column->event),
						 pc_str_len(m, column->event)),
		};
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (i != j && pairs[i].len == pairs[j].len &&
			    !memcmp(pairs[i].event, pairs[j].event, pairs[i].len))
				collides[i] = true;
	for (size_t i = 0; i < n; i++)
		if (collides[i])
			pairs[i].len = pairs[i].event_len;
	return n;
}

/* text[0, len) and suffix, in a new string. */
static char *joined(const char *text, size_t len, const char *suffix)
{
	size_t suffix_len = strlen(suffix);
	char *name = pc_xmalloc(len + suffix_len + 1);

	memcpy(name, text, len);
	memcpy(name + len, suffix, suffix_len + 1);
	return name;
}

/*
 * pprof's names for the model's columns: names[c] (malloc'd, for the
 * caller to free) for the columns of perf event pairs, NULL for the others,
 * which keep their type as name; all NULL when a name would then be taken
 * twice (by another column).
 */
void pprof_column_names(const struct pc_model *m, char **names)
{
	struct event_pair pairs[PC_MAX_COLUMNS / 2];
	size_t n = find_event_pairs(m, pairs);
	bool distinct = true;

	for (size_t c = 0; c < pc_model_ncolumns(m); c++)
		names[c] = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct event_pair *pair = &pairs[i];
		const char *unit = pc_str(m, pc_model_column(m, pair->weight)->unit);
		bool cpu = n == 1 && pc_event_is_clock(pair->event, pair->event_len) &&
			   !strcmp(unit, "nanoseconds");

		names[pair->samples] = n > 1 ? joined(pair->event, pair->len, "_samples") :
				       joined("samples", strlen("samples"), "");
		names[pair->weight] = cpu ? joined("cpu", strlen("cpu"), "") :
				      joined(pair->event, pair->len, "");
	}
	for (size_t c = 0; c < pc_model_ncolumns(m) && n; c++)
		for (size_t d = 0; d < c; d++) {
			const char *a = names[c] ? names[c] : pc_str(m, pc_model_column(m, c)->type);
			const char *b = names[d] ? names[d] : pc_str(m, pc_model_column(m, d)->type);

			distinct &= strcmp(a, b) != 0;
		}
	for (size_t c = 0; c < pc_model_ncolumns(m) && !distinct; c++) {
		free(names[c]);
		names[c] = NULL;
	}
}

/* ---- the profiled program ---- */

/* Whether text[0, len) ends with suffix (lowercase ASCII), in any case. */
static bool has_suffix(const char *text, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	if (len < n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = text[len - n + i];

		if ((c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c) != suffix[i])
			return false;
	}
	return true;
}

/* A shared library by its name: "libc.so.6", "x.so", "x.dll", "x.dylib". */
static bool is_shared_library(const char *name, size_t len)
{
	for (size_t i = 0; i + 4 <= len; i++)
		if (!memcmp(name + i, ".so.", 4))
			return true;
	return has_suffix(name, len, ".so") || has_suffix(name, len, ".dll") ||
	       has_suffix(name, len, ".dylib");
}

/* The part of path[0, len) after its last '/' or '\\'. */
static const char *base_name(const char *path, size_t len, size_t *base_len)
{
	size_t at = len;

	while (at > 0 && path[at - 1] != '/' && path[at - 1] != '\\')
		at--;
	*base_len = len - at;
	return path + at;
}

/* Whether module id is the program word[0, len) names: by path or base name. */
static bool module_named(const struct pc_model *m, uint32_t id, const char *word, size_t len)
{
	pc_str_id name = pc_model_module(m, id)->name;
	size_t name_base_len, word_base_len;
	const char *name_base = base_name(pc_str(m, name), pc_str_len(m, name), &name_base_len);
	const char *word_base = base_name(word, len, &word_base_len);

	if (!pc_model_module_is_file(m, id))
		return false;
	if (pc_str_len(m, name) == len && !memcmp(pc_str(m, name), word, len))
		return true;
	return word_base_len && name_base_len == word_base_len &&
	       !memcmp(name_base, word_base, word_base_len);
}

/* The default column's counts of the samples whose leaf (not inlined) is in each module. */
static uint64_t *leaf_counts(const struct pc_model *m)
{
	uint64_t *counts = pc_xcalloc(pc_model_nmodules(m) + 1, sizeof(*counts));
	int def = pc_model_default_column(m);

	for (size_t i = 0; i < pc_model_nsamples(m) && def >= 0; i++) {
		size_t n, leaf = 0;
		const uint32_t *frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);
		uint64_t value = pc_model_values(m, i)[def];
		uint32_t module;

		while (leaf < n && (pc_model_frame(m, frames[leaf])->flags & PC_FRAME_INLINE))
			leaf++;
		if (leaf == n)
			continue;
		module = pc_model_frame(m, frames[leaf])->module;
		counts[module] = value > UINT64_MAX - counts[module] ? UINT64_MAX :
				 counts[module] + value;
	}
	return counts;
}

/* The module word names with the most leaf counts (the first of equals); 0 = none. */
static uint32_t module_of_word(const struct pc_model *m, const uint64_t *counts,
			       const char *word, size_t len)
{
	uint32_t best = 0;

	for (uint32_t id = 1; id <= pc_model_nmodules(m); id++)
		if (module_named(m, id, word, len) && (!best || counts[id] > counts[best]))
			best = id;
	return best;
}

/* The next blank-separated word of text[*at, len); false at the end. */
static bool next_word(const char *text, size_t len, size_t *at, const char **word,
		      size_t *word_len)
{
	while (*at < len && text[*at] == ' ')
		(*at)++;
	if (*at == len)
		return false;
	*word = text + *at;
	while (*at < len && text[*at] != ' ')
		(*at)++;
	*word_len = (size_t)(text + *at - *word);
	return true;
}

/*
 * The program of a perf command line ("perf record ... -- PROGRAM ARGS",
 * as perf script --header prints it): the first word after " -- ", else
 * the first word after "record" that is no option and names a module (an
 * option's value, "-F 499", names none). 0 = none.
 */
static uint32_t commanded_module(const struct pc_model *m, const uint64_t *counts,
				 const char *command, size_t len)
{
	const char *word;
	size_t at = 0, word_len;
	bool after_record = false;

	for (size_t i = 0; i + 4 <= len; i++)
		if (!memcmp(command + i, " -- ", 4)) {
			at = i + 4;
			return next_word(command, len, &at, &word, &word_len) ?
			       module_of_word(m, counts, word, word_len) : 0;
		}
	while (next_word(command, len, &at, &word, &word_len)) {
		uint32_t id;

		if (!after_record) {
			after_record = word_len == 6 && !memcmp(word, "record", 6);
			continue;
		}
		if (word[0] != '-' && (id = module_of_word(m, counts, word, word_len)))
			return id;
	}
	return 0;
}

/*
 * The profiled program, which pprof shows as the profile's binary
 * (mapping 1): the one perf's command line names (a "perf-command:"
 * comment), else the module with the most leaf counts in the default
 * column that is a file (pc_model_module_is_file) and no shared library;
 * 0 = none.
 */
uint32_t pprof_program_module(const struct pc_model *m)
{
	static const char prefix[] = "perf-command:";
	uint64_t *counts;
	uint32_t best = 0;
	bool commanded;

	if (pprof_model_from_pprof(m))
		return 0;
	counts = leaf_counts(m);

	for (size_t i = 0; i < pc_model_ncomments(m) && !best; i++) {
		const char *text = pc_str(m, pc_model_comment(m, i));
		size_t len = pc_str_len(m, pc_model_comment(m, i));

		if (len >= strlen(prefix) && !memcmp(text, prefix, strlen(prefix)))
			best = commanded_module(m, counts, text + strlen(prefix),
						len - strlen(prefix));
	}
	commanded = best != 0;
	for (uint32_t id = 1; id <= pc_model_nmodules(m) && !commanded; id++) {
		pc_str_id name = pc_model_module(m, id)->name;

		if (counts[id] && pc_model_module_is_file(m, id) &&
		    !is_shared_library(pc_str(m, name), pc_str_len(m, name)) &&
		    (!best || counts[id] > counts[best]))
			best = id;
	}
	free(counts);
	return best;
}


/* ---- profiles read from pprof ---- */

bool pprof_model_from_pprof(const struct pc_model *m)
{
	for (size_t i = 0; i < pc_model_nsources(m); i++)
		if (strcmp(pc_str(m, pc_model_source(m, i)), "pprof"))
			return false;
	return pc_model_nsources(m) > 0;
}

const char *pprof_fact(const struct pc_model *m, const char *key, size_t *len)
{
	for (size_t i = 0; i < pc_model_nfacts(m); i++) {
		const struct pc_fact *fact = pc_model_fact(m, i);

		if (!strcmp(pc_str(m, fact->key), key)) {
			*len = pc_str_len(m, fact->value);
			return pc_str(m, fact->value);
		}
	}
	return NULL;
}
