#!/usr/bin/env python3
"""xpress_seeds.py - writes the seed corpus of fuzz_xpress (tests/fuzz/corpus/xpress):
small MS-XCA plain LZ77 inputs, each a little-endian u16 output size then
the compressed bytes, the same bytes on every run.

    python3 xpress_seeds.py [DIR]   writes the seeds into DIR
                                   (default: ../corpus/xpress)

The encoder is [MS-XCA] 2.3 (Plain LZ77 Compression), written apart from
the C test compressor (tests/support/xpress_compress.h) so that the seeds
also check that the two agree with the C decoder: a flag word reserved
ahead of every 32 items, bit 31 first, 1 = match; a match is the u16
(distance - 1) << 3 | min(length - 3, 7); for length - 3 >= 7 a half-byte
(low half of a new byte, or the high half of the byte the previous such
match opened), for >= 22 a byte, for >= 277 a u16 of length - 3 (for
>= 65536, a u16 of 0 and a u32); the last flag word is padded with 1 bits.
Matches are found greedily by brute force (the seeds are small).

Seeds:
  alphabet.bin    [MS-XCA] 3.1: "abc...z", 26 literals
  abc300.bin      [MS-XCA] 3.1: "abc" x 100, 3 literals and one match of 297
  empty.bin       no output: one all-ones flag word
  run.bin         3000 x "z": a u16 length, distance 1 (overlapping)
  text.bin        repetitive text: short, half-byte and byte lengths,
                  both halves of shared bytes, several flag words
  far.bin         a match 8192 bytes back (the farthest), 8200 bytes
  u32-form.bin    a length written as a u16 of 0 and a u32 of 40 (the
                  spec's decoder takes it; compressors write it only for
                  lengths of 65539 and more)
  before-start.bin  a match before the start of the output (must fail)
"""
import os
import struct
import sys


class Encoder:
    def __init__(self):
        self.out = bytearray(4)
        self.flags = 0
        self.nflags = 0
        self.flag_pos = 0
        self.half_byte = 0

    def _flag(self, bit):
        self.flags = (self.flags << 1) | bit
        self.nflags += 1
        if self.nflags == 32:
            struct.pack_into("<I", self.out, self.flag_pos, self.flags)
            self.flags = 0
            self.nflags = 0
            self.flag_pos = len(self.out)
            self.out += bytes(4)

    def literal(self, byte):
        self.out.append(byte)
        self._flag(0)

    def match(self, distance, length, u32_form=False):
        rest = length - 3
        self.out += struct.pack("<H", ((distance - 1) << 3) | min(rest, 7))
        if rest >= 7:
            half = min(rest - 7, 15)
            if self.half_byte == 0:
                self.half_byte = len(self.out)
                self.out.append(half)
            else:
                self.out[self.half_byte] |= half << 4
                self.half_byte = 0
            if half == 15:
                if rest - 22 < 255 and not u32_form:
                    self.out.append(rest - 22)
                else:
                    self.out.append(255)
                    if rest < 65536 and not u32_form:
                        self.out += struct.pack("<H", rest)
                    else:
                        self.out += struct.pack("<HI", 0, rest)
        self._flag(1)

    def finish(self):
        free = 32 - self.nflags
        flags = ((self.flags << free) | ((1 << free) - 1)) & 0xFFFFFFFF
        struct.pack_into("<I", self.out, self.flag_pos, flags)
        return bytes(self.out)


def compress(data, window=8192):
    enc = Encoder()
    at = 0
    while at < len(data):
        best, best_distance = 0, 0
        for distance in range(1, min(at, window) + 1):
            n = 0
            while at + n < len(data) and data[at + n - distance] == data[at + n]:
                n += 1
            if n > best:
                best, best_distance = n, distance
        if best >= 3:
            enc.match(best_distance, best)
            at += best
        else:
            enc.literal(data[at])
            at += 1
    return enc.finish()


def seed(size, packed):
    return struct.pack("<H", size) + packed


def seeds():
    alphabet = b"abcdefghijklmnopqrstuvwxyz"
    abc = b"abc" * 100
    text = (b"profconv reads ETW traces; ETW traces hold samples. " * 3 +
            b"samples, samples, stacks and more stacks " * 5)
    far = bytes((i * 131 + (i >> 3)) & 0xFF for i in range(8192))
    far += far[:8]
    out = {
        "alphabet.bin": seed(26, compress(alphabet)),
        "abc300.bin": seed(300, compress(abc)),
        "empty.bin": seed(0, compress(b"")),
        "run.bin": seed(3000, compress(b"z" * 3000)),
        "text.bin": seed(len(text), compress(text)),
    }
    assert out["alphabet.bin"][2:] == bytes.fromhex("3f000000") + alphabet
    assert out["abc300.bin"][2:] == bytes.fromhex("ffffff1f6162631700 0fff2601".replace(" ", ""))
    enc = Encoder()
    for byte in far[:8192]:
        enc.literal(byte)
    enc.match(8192, 8)
    out["far.bin"] = seed(len(far), enc.finish())
    enc = Encoder()
    enc.literal(ord("u"))
    enc.match(1, 43, u32_form=True)
    out["u32-form.bin"] = seed(44, enc.finish())
    enc = Encoder()
    enc.literal(ord("b"))
    enc.match(2, 3)
    out["before-start.bin"] = seed(4, enc.finish())
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    directory = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "corpus", "xpress")
    os.makedirs(directory, exist_ok=True)
    for name, data in sorted(seeds().items()):
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
