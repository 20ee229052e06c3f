/*
 * input.h - a forward-only buffered reader over a file, stdin or a memory
 * block. Readers stream through a window that is refilled with large
 * read(2) calls, so memory stays bounded whatever the input size; the same
 * window serves probing (peek without consuming).
 */
#ifndef PC_INPUT_H
#define PC_INPUT_H

#include "base/error.h"
#include "base/progress.h"

#define PC_SIZE_UNKNOWN UINT64_MAX
#define PC_PROBE_BYTES 4096

struct pc_input {
	char name[512];          /* for messages: the path, or "<stdin>" */
	int fd;                  /* -1 for memory input */
	bool owns_fd;
	uint64_t size;           /* total size, or PC_SIZE_UNKNOWN for a pipe */
	const uint8_t *data;     /* the window: unread bytes are data[pos, end) */
	uint8_t *buf;            /* owned window storage (NULL for memory input) */
	size_t cap, pos, end;
	uint64_t data_offset;    /* input offset of data[0] */
	bool eof;
	int io_errno;            /* set when read(2) failed */
	uint64_t limit;          /* the input ends here (a range), or UINT64_MAX */
	bool positioned;         /* read with pread(2) at the offset: a range */
	uint64_t range_start;    /* a range: where it starts */
	unsigned progress_ranges; /* a range: progress counts its bytes this many
				     times (ranges read at once, at one pace) */
	struct pc_progress *progress; /* told the offset after each refill, or NULL */
};

/* Opens a file, or stdin for "-". */
int pc_input_open(struct pc_input *in, const char *path, struct pc_error *err);
/* Reads from memory that the caller keeps alive; name is for messages. */
void pc_input_from_memory(struct pc_input *in, const char *name,
			  const void *data, size_t size);
/*
 * Reads bytes [start, end) of file, an open regular file, through a window
 * of its own and pread(2), so that ranges of one file can be read at once
 * on several threads. Offsets, size and name are file's. Close it before
 * file; file's own reading is not disturbed.
 */
void pc_input_open_range(struct pc_input *in, const struct pc_input *file,
			 uint64_t start, uint64_t end);
/*
 * Whether in reads a regular file of known size whose offsets are the
 * file's own (so that ranges of it may be read by pc_input_open_range): a
 * file opened by path, or standard input redirected from a file at its
 * start; not standard input that was at another offset, a pipe, memory or
 * a range.
 */
bool pc_input_is_whole_file(const struct pc_input *in);
/*
 * Ends in at offset limit (UINT64_MAX: where the input ends), so that
 * reading stops there and may go on later once the limit is lifted; false
 * (nothing changed) when that cannot be: the limit lies before the unread
 * bytes, or inside the window of an input that cannot seek back to it.
 */
bool pc_input_set_limit(struct pc_input *in, uint64_t limit);
void pc_input_close(struct pc_input *in);

/*
 * Makes at least want bytes readable at *data without consuming them.
 * Returns how many are readable: fewer than want only at the end of the
 * input (or after a read error, see io_errno).
 */
size_t pc_input_fill(struct pc_input *in, size_t want, const uint8_t **data);
void pc_input_consume(struct pc_input *in, size_t n);
/* Offset of the next unread byte. */
uint64_t pc_input_offset(const struct pc_input *in);
/* Skips forward to offset; returns false when the input ends first. */
bool pc_input_skip_to(struct pc_input *in, uint64_t offset);
/* Fills err with the read error if one happened; returns -1 then, else 0. */
int pc_input_check_io(const struct pc_input *in, struct pc_error *err);

#endif
