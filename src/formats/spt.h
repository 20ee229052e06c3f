/*
 * spt_format.h - constants of the Microsoft SPGO Sample Profile Trace
 * (SPT) format, version 1, shared by the SPT reader, a future SPT writer
 * and tools/sptgen.c (which includes nothing else of profconv, so this
 * header needs only <stdint.h>).
 *
 * Source: the SPTDump page (seeds/000_*.txt) and research/vsperf.md section
 * 9; DESIGN.md section 3.1 decides where they are unclear. Layout, all
 * little-endian:
 *
 *   header (32 bytes), string table, program-id table, event stream
 *
 * The event stream is a sequence of BINARY_ID segments; each holds the
 * records (REPEAT, IP, LBR, call stack) of one program id.
 */
#ifndef PC_SPT_FORMAT_H
#define PC_SPT_FORMAT_H

#include <stdint.h>

/*
 * The signature as the SPTDump page gives it: the little-endian u32
 * 0x5350543A, i.e. the bytes 3A 54 50 53 (":TPS"). The same page calls it
 * "SPT:", which on disk would be the bytes 53 50 54 3A (the u32 value
 * 0x3A545053). Readers accept both; writers write SPT_SIGNATURE.
 */
#define SPT_SIGNATURE 0x5350543Au
#define SPT_SIGNATURE_TEXT "SPT:"
#define SPT_SIGNATURE_TEXT_VALUE 0x3A545053u
#define SPT_VERSION 1u

/* Header field offsets; the header is SPT_HEADER_SIZE bytes. */
#define SPT_HEADER_SIZE 32u
#define SPT_OFF_SIGNATURE 0x00u       /* u32 */
#define SPT_OFF_VERSION 0x04u         /* u32 */
#define SPT_OFF_RAW_DATA_ID 0x08u     /* u32, reserved (0) */
#define SPT_OFF_TARGET_ARCH 0x0Cu     /* u32, reserved (0) */
#define SPT_OFF_STRTAB_OFFSET 0x10u   /* u32 */
#define SPT_OFF_PROGID_OFFSET 0x14u   /* u32 */
#define SPT_OFF_STRTAB_USED 0x18u     /* u16, bytes */
#define SPT_OFF_STRTAB_CAPACITY 0x1Au /* u16, bytes */
#define SPT_OFF_PROGIDS_USED 0x1Cu    /* u16, entries */
#define SPT_OFF_PROGID_CAPACITY 0x1Eu /* u16, entries */

/* Typical values (what SPTAggregate writes, and what writers use). */
#define SPT_STRTAB_CAPACITY_DEFAULT 0x4000u
#define SPT_PROGID_CAPACITY_DEFAULT 0x100u

/*
 * A program-id entry: 16-byte GUID (Data1 u32, Data2 u16, Data3 u16,
 * Data4 8 bytes), u32 age, u32 string index (byte offset of the
 * NUL-terminated UTF-8 name in the string table).
 */
#define SPT_PROGID_SIZE 24u
#define SPT_PROGID_OFF_GUID 0u
#define SPT_PROGID_OFF_AGE 16u
#define SPT_PROGID_OFF_NAME 20u

enum spt_op {
	SPT_OP_UNHALT_CYCLE = 0x01,
	SPT_OP_RETIRE_INSTR = 0x02,
	SPT_OP_RETIRE_BR_INSTR = 0x03,
	SPT_OP_L1_ICACHE_MISS = 0x04,
	SPT_OP_L1_DCACHE_MISS = 0x05,
	SPT_OP_LBR = 0x10,
	SPT_OP_ETW_INSTR = 0x41,
	SPT_OP_ETW_CALLSTACK = 0x42,
	SPT_OP_BINARY_ID = 0x81,
	SPT_OP_REPEAT = 0x82,
};

/* Fixed-size records: op, pad, u16 program id, u32 length / op, pad, u64. */
#define SPT_BINARY_ID_SIZE 8u
#define SPT_BINARY_ID_OFF_PROGID 2u
#define SPT_BINARY_ID_OFF_LENGTH 4u
#define SPT_REPEAT_SIZE 10u
#define SPT_REPEAT_OFF_COUNT 2u
/* Data records: op, u8 N, then N items (u32 RVA, or u32 to + u32 from). */
#define SPT_DATA_HEADER_SIZE 2u
#define SPT_RVA_SIZE 4u
#define SPT_LBR_PAIR_SIZE 8u
#define SPT_MAX_ITEMS 255u

/*
 * The data record kinds in their fixed order: the order in which the
 * reader adds model columns (and so which column is the default).
 */
enum spt_kind {
	SPT_KIND_UNHALT_CYCLE,
	SPT_KIND_RETIRE_INSTR,
	SPT_KIND_RETIRE_BR_INSTR,
	SPT_KIND_L1_ICACHE_MISS,
	SPT_KIND_L1_DCACHE_MISS,
	SPT_KIND_ETW_INSTR,
	SPT_KIND_LBR,
	SPT_KIND_ETW_CALLSTACK,
	SPT_NKINDS,
	SPT_KIND_NONE = SPT_NKINDS, /* BINARY_ID, REPEAT, unknown */
};

#define SPT_COLUMN_UNIT "count"

static inline enum spt_kind spt_op_kind(unsigned op)
{
	switch (op) {
	case SPT_OP_UNHALT_CYCLE: return SPT_KIND_UNHALT_CYCLE;
	case SPT_OP_RETIRE_INSTR: return SPT_KIND_RETIRE_INSTR;
	case SPT_OP_RETIRE_BR_INSTR: return SPT_KIND_RETIRE_BR_INSTR;
	case SPT_OP_L1_ICACHE_MISS: return SPT_KIND_L1_ICACHE_MISS;
	case SPT_OP_L1_DCACHE_MISS: return SPT_KIND_L1_DCACHE_MISS;
	case SPT_OP_ETW_INSTR: return SPT_KIND_ETW_INSTR;
	case SPT_OP_LBR: return SPT_KIND_LBR;
	case SPT_OP_ETW_CALLSTACK: return SPT_KIND_ETW_CALLSTACK;
	default: return SPT_KIND_NONE;
	}
}

static inline unsigned spt_kind_op(enum spt_kind kind)
{
	static const unsigned char ops[SPT_NKINDS] = {
		SPT_OP_UNHALT_CYCLE, SPT_OP_RETIRE_INSTR, SPT_OP_RETIRE_BR_INSTR,
		SPT_OP_L1_ICACHE_MISS, SPT_OP_L1_DCACHE_MISS, SPT_OP_ETW_INSTR,
		SPT_OP_LBR, SPT_OP_ETW_CALLSTACK,
	};

	return kind < SPT_NKINDS ? ops[kind] : 0;
}

/* The record's name as SPTDump spells it (without SPT_OP_), or NULL. */
static inline const char *spt_op_name(unsigned op)
{
	switch (op) {
	case SPT_OP_UNHALT_CYCLE: return "UNHALT_CYCLE";
	case SPT_OP_RETIRE_INSTR: return "RETIRE_INSTR";
	case SPT_OP_RETIRE_BR_INSTR: return "RETIRE_BR_INSTR";
	case SPT_OP_L1_ICACHE_MISS: return "L1_ICACHE_MISS";
	case SPT_OP_L1_DCACHE_MISS: return "L1_DCACHE_MISS";
	case SPT_OP_LBR: return "LBR";
	case SPT_OP_ETW_INSTR: return "ETW_INSTR";
	case SPT_OP_ETW_CALLSTACK: return "ETW_CALLSTACK";
	case SPT_OP_BINARY_ID: return "BINARY_ID";
	case SPT_OP_REPEAT: return "REPEAT";
	default: return NULL;
	}
}

/* The model column (value type) of a data record kind. */
static inline const char *spt_kind_column(enum spt_kind kind)
{
	switch (kind) {
	case SPT_KIND_UNHALT_CYCLE: return "unhalted_cycle";
	case SPT_KIND_RETIRE_INSTR: return "retired_instr";
	case SPT_KIND_RETIRE_BR_INSTR: return "retired_branch";
	case SPT_KIND_L1_ICACHE_MISS: return "l1i_miss";
	case SPT_KIND_L1_DCACHE_MISS: return "l1d_miss";
	case SPT_KIND_ETW_INSTR: return "timer";
	case SPT_KIND_LBR: return "lbr_branch";
	case SPT_KIND_ETW_CALLSTACK: return "callstack";
	default: return NULL;
	}
}

/* Bytes of one item of a data record (an RVA, or an LBR to/from pair). */
static inline unsigned spt_item_size(unsigned op)
{
	return op == SPT_OP_LBR ? SPT_LBR_PAIR_SIZE : SPT_RVA_SIZE;
}

#endif
