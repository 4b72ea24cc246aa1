//! Go's `compress/flate` compressor at its default level (`flate.DefaultCompression`, level 6),
//! byte for byte: the same hash chains, lazy matching, block splitting
//! (`maxFlateBlockTokens`), Huffman code construction (`huffmanEncoder.generate`) and the
//! choice between a stored, fixed and dynamic block that `huffmanBitWriter.writeBlock` makes.
//! Follows `deflate.go`, `huffman_code.go`, `huffman_bit_writer.go` and `token.go` of Go's
//! source. Only what one `Write` of the whole input followed by `Close` produces is needed (how
//! `archive/tar` over `compress/gzip` writes a chart archive): the compressor's output does not
//! depend on how the input is split into writes.
//!
//! Checked against Go through real Helm: `crates/kubepkg/tests/it/repo.rs`
//! (`file_dependencies_are_packed_as_helm_packs_them`) compares the archive bytes `helm
//! dependency update` writes with kubepkg's.

const WINDOW_SIZE: isize = 1 << 15;
const WINDOW_MASK: isize = WINDOW_SIZE - 1;
const BASE_MATCH_LENGTH: isize = 3;
const MIN_MATCH_LENGTH: isize = 4;
const MAX_MATCH_LENGTH: isize = 258;
const BASE_MATCH_OFFSET: isize = 1;
const MAX_FLATE_BLOCK_TOKENS: usize = 1 << 14;
const MAX_STORE_BLOCK_SIZE: usize = 65535;
const HASH_BITS: u32 = 17;
const HASH_SIZE: usize = 1 << HASH_BITS;
const HASH_MASK: u32 = (1 << HASH_BITS) - 1;
const MAX_HASH_OFFSET: isize = 1 << 24;
const HASHMUL: u32 = 0x1e35a7bd;

/// Go's `compressionLevel`: the match lengths and chain length a level searches with.
struct Level {
    good: isize,
    lazy: isize,
    nice: isize,
    chain: isize,
}

/// `levels[6]`, the default level.
const LEVEL: Level = Level {
    good: 8,
    lazy: 16,
    nice: 128,
    chain: 128,
};

const LENGTH_SHIFT: u32 = 22;
const OFFSET_MASK: u32 = (1 << LENGTH_SHIFT) - 1;
const MATCH_TYPE: u32 = 1 << 30;

const MAX_NUM_LIT: usize = 286;
const OFFSET_CODE_COUNT: usize = 30;
const END_BLOCK_MARKER: u32 = 256;
const LENGTH_CODES_START: usize = 257;
const CODEGEN_CODE_COUNT: usize = 19;
const BAD_CODE: u8 = 255;

const LENGTH_EXTRA_BITS: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const LENGTH_BASE: [u32; 29] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 112, 128,
    160, 192, 224, 255,
];
const OFFSET_EXTRA_BITS: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];
const OFFSET_BASE: [u32; 30] = [
    0x000000, 0x000001, 0x000002, 0x000003, 0x000004, 0x000006, 0x000008, 0x00000c, 0x000010,
    0x000018, 0x000020, 0x000030, 0x000040, 0x000060, 0x000080, 0x0000c0, 0x000100, 0x000180,
    0x000200, 0x000300, 0x000400, 0x000600, 0x000800, 0x000c00, 0x001000, 0x001800, 0x002000,
    0x003000, 0x004000, 0x006000,
];
const CODEGEN_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// The code of `x` by a table of ascending code bases (token.go's tables are built from
/// them): the index of the last base not above `x`.
fn code_by_base(bases: &[u32], x: u32) -> u32 {
    (bases.partition_point(|&base| base <= x) - 1) as u32
}

/// `lengthCodes[len]`: the length code (0..28) of a match length minus 3.
fn length_code(len: u32) -> u32 {
    code_by_base(&LENGTH_BASE, len)
}

/// `offsetCode(off)` of token.go.
fn offset_code(off: u32) -> u32 {
    // offsetCodes[off] for off < 256.
    let small = |off: u32| code_by_base(&OFFSET_BASE, off);
    if off < 256 {
        return small(off);
    }
    if off >> 7 < 256 {
        return small(off >> 7) + 14;
    }
    small(off >> 14) + 28
}

fn literal_token(lit: u32) -> u32 {
    lit
}

fn match_token(xlength: u32, xoffset: u32) -> u32 {
    MATCH_TYPE + (xlength << LENGTH_SHIFT) + xoffset
}

fn token_length(t: u32) -> u32 {
    (t - MATCH_TYPE) >> LENGTH_SHIFT
}

fn token_offset(t: u32) -> u32 {
    t & OFFSET_MASK
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct HCode {
    code: u16,
    len: u16,
}

#[derive(Clone, Copy)]
struct LiteralNode {
    literal: u16,
    freq: i32,
}

#[derive(Clone, Copy, Default)]
struct LevelInfo {
    level: i32,
    last_freq: i32,
    next_char_freq: i32,
    next_pair_freq: i32,
    needed: i32,
}

fn reverse_bits(number: u16, bit_length: u8) -> u16 {
    (number << (16 - bit_length as u32)).reverse_bits()
}

#[derive(Clone)]
struct HuffmanEncoder {
    codes: Vec<HCode>,
    bit_count: [i32; 17],
}

const MAX_BITS_LIMIT: usize = 16;

impl HuffmanEncoder {
    fn new(size: usize) -> Self {
        HuffmanEncoder {
            codes: vec![HCode::default(); size],
            bit_count: [0; 17],
        }
    }

    fn fixed_literal() -> Self {
        let mut h = HuffmanEncoder::new(MAX_NUM_LIT);
        for ch in 0..MAX_NUM_LIT as u16 {
            let (bits, size) = match ch {
                0..=143 => (ch + 48, 8),
                144..=255 => (ch + 400 - 144, 9),
                256..=279 => (ch - 256, 7),
                _ => (ch + 192 - 280, 8),
            };
            h.codes[ch as usize] = HCode {
                code: reverse_bits(bits, size as u8),
                len: size,
            };
        }
        h
    }

    fn fixed_offset() -> Self {
        let mut h = HuffmanEncoder::new(30);
        for ch in 0..30u16 {
            h.codes[ch as usize] = HCode {
                code: reverse_bits(ch, 5),
                len: 5,
            };
        }
        h
    }

    fn bit_length(&self, freq: &[i32]) -> isize {
        let mut total = 0isize;
        for (i, f) in freq.iter().enumerate() {
            if *f != 0 {
                total += *f as isize * self.codes[i].len as isize;
            }
        }
        total
    }

    fn bit_counts(&mut self, list: &mut Vec<LiteralNode>, mut max_bits: i32) -> Vec<i32> {
        let n = list.len() as i32;
        list.push(LiteralNode {
            literal: u16::MAX,
            freq: i32::MAX,
        });
        if max_bits > n - 1 {
            max_bits = n - 1;
        }
        let mut levels = [LevelInfo::default(); MAX_BITS_LIMIT];
        let mut leaf_counts = [[0i32; MAX_BITS_LIMIT]; MAX_BITS_LIMIT];
        for level in 1..=max_bits {
            let l = level as usize;
            levels[l] = LevelInfo {
                level,
                last_freq: list[1].freq,
                next_char_freq: list[2].freq,
                next_pair_freq: list[0].freq + list[1].freq,
                needed: 0,
            };
            leaf_counts[l][l] = 2;
            if level == 1 {
                levels[l].next_pair_freq = i32::MAX;
            }
        }
        levels[max_bits as usize].needed = 2 * n - 4;
        let mut level = max_bits as usize;
        loop {
            if levels[level].next_pair_freq == i32::MAX && levels[level].next_char_freq == i32::MAX
            {
                levels[level].needed = 0;
                levels[level + 1].next_pair_freq = i32::MAX;
                level += 1;
                continue;
            }
            let prev_freq = levels[level].last_freq;
            if levels[level].next_char_freq < levels[level].next_pair_freq {
                let nn = leaf_counts[level][level] + 1;
                levels[level].last_freq = levels[level].next_char_freq;
                leaf_counts[level][level] = nn;
                levels[level].next_char_freq = list[nn as usize].freq;
            } else {
                levels[level].last_freq = levels[level].next_pair_freq;
                let (lower, upper) = leaf_counts.split_at_mut(level);
                upper[0][..level].copy_from_slice(&lower[level - 1][..level]);
                let below = levels[level].level as usize - 1;
                levels[below].needed = 2;
            }
            levels[level].needed -= 1;
            if levels[level].needed == 0 {
                if levels[level].level == max_bits {
                    break;
                }
                let up = levels[level].level as usize + 1;
                levels[up].next_pair_freq = prev_freq + levels[level].last_freq;
                level += 1;
            } else {
                while levels[level - 1].needed > 0 {
                    level -= 1;
                }
            }
        }
        list.pop();
        assert_eq!(
            leaf_counts[max_bits as usize][max_bits as usize], n,
            "leafCounts[maxBits][maxBits] != n"
        );
        let counts = leaf_counts[max_bits as usize];
        for (bits, level) in (1usize..).zip((1..=max_bits as usize).rev()) {
            self.bit_count[bits] = counts[level] - counts[level - 1];
        }
        self.bit_count[..=max_bits as usize].to_vec()
    }

    fn assign_encoding_and_size(&mut self, bit_count: &[i32], list: &[LiteralNode]) {
        let mut code: u16 = 0;
        let mut list = list;
        for (n, bits) in bit_count.iter().enumerate() {
            code <<= 1;
            if n == 0 || *bits == 0 {
                continue;
            }
            let (rest, chunk) = list.split_at(list.len() - *bits as usize);
            let mut chunk = chunk.to_vec();
            chunk.sort_by_key(|node| node.literal);
            for node in chunk {
                self.codes[node.literal as usize] = HCode {
                    code: reverse_bits(code, n as u8),
                    len: n as u16,
                };
                code = code.wrapping_add(1);
            }
            list = rest;
        }
    }

    fn generate(&mut self, freq: &[i32], max_bits: i32) {
        let mut list = Vec::with_capacity(freq.len() + 1);
        for (i, f) in freq.iter().enumerate() {
            if *f != 0 {
                list.push(LiteralNode {
                    literal: i as u16,
                    freq: *f,
                });
            } else {
                self.codes[i].len = 0;
            }
        }
        if list.len() <= 2 {
            for (i, node) in list.iter().enumerate() {
                self.codes[node.literal as usize] = HCode {
                    code: i as u16,
                    len: 1,
                };
            }
            return;
        }
        list.sort_by(|a, b| a.freq.cmp(&b.freq).then(a.literal.cmp(&b.literal)));
        let bit_count = self.bit_counts(&mut list, max_bits);
        self.assign_encoding_and_size(&bit_count, &list);
    }
}

struct BitWriter {
    out: Vec<u8>,
    bits: u64,
    nbits: u32,
    literal_freq: Vec<i32>,
    offset_freq: Vec<i32>,
    codegen: Vec<u8>,
    codegen_freq: [i32; CODEGEN_CODE_COUNT],
    literal_encoding: HuffmanEncoder,
    offset_encoding: HuffmanEncoder,
    codegen_encoding: HuffmanEncoder,
    fixed_literal: HuffmanEncoder,
    fixed_offset: HuffmanEncoder,
}

impl BitWriter {
    fn new() -> Self {
        BitWriter {
            out: Vec::new(),
            bits: 0,
            nbits: 0,
            literal_freq: vec![0; MAX_NUM_LIT],
            offset_freq: vec![0; OFFSET_CODE_COUNT],
            codegen: vec![0; MAX_NUM_LIT + OFFSET_CODE_COUNT + 1],
            codegen_freq: [0; CODEGEN_CODE_COUNT],
            literal_encoding: HuffmanEncoder::new(MAX_NUM_LIT),
            offset_encoding: HuffmanEncoder::new(OFFSET_CODE_COUNT),
            codegen_encoding: HuffmanEncoder::new(CODEGEN_CODE_COUNT),
            fixed_literal: HuffmanEncoder::fixed_literal(),
            fixed_offset: HuffmanEncoder::fixed_offset(),
        }
    }

    fn drain(&mut self) {
        while self.nbits >= 8 {
            self.out.push(self.bits as u8);
            self.bits >>= 8;
            self.nbits -= 8;
        }
    }

    /// Pads the bits written so far to a byte (Go's `flush`).
    fn flush(&mut self) {
        self.drain();
        if self.nbits > 0 {
            self.out.push(self.bits as u8);
        }
        self.bits = 0;
        self.nbits = 0;
    }

    fn write_bits(&mut self, b: u32, nb: u32) {
        self.bits |= (b as u64) << self.nbits;
        self.nbits += nb;
        self.drain();
    }

    fn write_code(&mut self, c: HCode) {
        self.write_bits(c.code as u32, c.len as u32);
    }

    fn write_bytes(&mut self, bytes: &[u8]) {
        debug_assert_eq!(self.nbits % 8, 0, "writeBytes with unfinished bits");
        self.drain();
        self.out.extend_from_slice(bytes);
    }

    fn generate_codegen(&mut self, num_literals: usize, num_offsets: usize) {
        /// A repeat code (16, 17 or 18) and its count's extra bits, written at `*at`.
        fn put_repeat(
            codegen: &mut [u8],
            at: &mut usize,
            freq: &mut [i32],
            code: u8,
            extra: isize,
        ) {
            codegen[*at] = code;
            codegen[*at + 1] = extra as u8;
            *at += 2;
            freq[code as usize] += 1;
        }
        self.codegen_freq = [0; CODEGEN_CODE_COUNT];
        for i in 0..num_literals {
            self.codegen[i] = self.literal_encoding.codes[i].len as u8;
        }
        for i in 0..num_offsets {
            self.codegen[num_literals + i] = self.offset_encoding.codes[i].len as u8;
        }
        self.codegen[num_literals + num_offsets] = BAD_CODE;
        let codegen = &mut self.codegen;
        let freq = &mut self.codegen_freq;
        let mut size = codegen[0];
        let mut count: isize = 1;
        let mut out_index = 0usize;
        let mut in_index = 1usize;
        while size != BAD_CODE {
            let next_size = codegen[in_index];
            in_index += 1;
            if next_size == size {
                count += 1;
                continue;
            }
            if size != 0 {
                codegen[out_index] = size;
                out_index += 1;
                freq[size as usize] += 1;
                count -= 1;
                while count >= 3 {
                    let n = count.min(6);
                    put_repeat(codegen, &mut out_index, freq, 16, n - 3);
                    count -= n;
                }
            } else {
                while count >= 11 {
                    let n = count.min(138);
                    put_repeat(codegen, &mut out_index, freq, 18, n - 11);
                    count -= n;
                }
                if count >= 3 {
                    put_repeat(codegen, &mut out_index, freq, 17, count - 3);
                    count = 0;
                }
            }
            count -= 1;
            while count >= 0 {
                codegen[out_index] = size;
                out_index += 1;
                freq[size as usize] += 1;
                count -= 1;
            }
            size = next_size;
            count = 1;
        }
        codegen[out_index] = BAD_CODE;
    }

    fn dynamic_size(&self, extra_bits: isize) -> (isize, usize) {
        let mut num_codegens = self.codegen_freq.len();
        while num_codegens > 4 && self.codegen_freq[CODEGEN_ORDER[num_codegens - 1]] == 0 {
            num_codegens -= 1;
        }
        let header = 3
            + 5
            + 5
            + 4
            + (3 * num_codegens as isize)
            + self.codegen_encoding.bit_length(&self.codegen_freq)
            + self.codegen_freq[16] as isize * 2
            + self.codegen_freq[17] as isize * 3
            + self.codegen_freq[18] as isize * 7;
        let size = header
            + self.literal_encoding.bit_length(&self.literal_freq)
            + self.offset_encoding.bit_length(&self.offset_freq)
            + extra_bits;
        (size, num_codegens)
    }

    fn fixed_size(&self, extra_bits: isize) -> isize {
        3 + self.fixed_literal.bit_length(&self.literal_freq)
            + self.fixed_offset.bit_length(&self.offset_freq)
            + extra_bits
    }

    fn write_stored_header(&mut self, length: usize, eof: bool) {
        self.write_bits(u32::from(eof), 3);
        self.flush();
        self.write_bits(length as u32, 16);
        self.write_bits(!(length as u16) as u32, 16);
    }

    fn write_fixed_header(&mut self, eof: bool) {
        self.write_bits(if eof { 3 } else { 2 }, 3);
    }

    fn write_dynamic_header(
        &mut self,
        num_literals: usize,
        num_offsets: usize,
        num_codegens: usize,
        eof: bool,
    ) {
        self.write_bits(if eof { 5 } else { 4 }, 3);
        self.write_bits((num_literals - 257) as u32, 5);
        self.write_bits((num_offsets - 1) as u32, 5);
        self.write_bits((num_codegens - 4) as u32, 4);
        for &order in CODEGEN_ORDER.iter().take(num_codegens) {
            let value = self.codegen_encoding.codes[order].len as u32;
            self.write_bits(value, 3);
        }
        let mut i = 0;
        loop {
            let code_word = self.codegen[i];
            i += 1;
            if code_word == BAD_CODE {
                break;
            }
            let c = self.codegen_encoding.codes[code_word as usize];
            self.write_code(c);
            match code_word {
                16 => {
                    self.write_bits(self.codegen[i] as u32, 2);
                    i += 1;
                }
                17 => {
                    self.write_bits(self.codegen[i] as u32, 3);
                    i += 1;
                }
                18 => {
                    self.write_bits(self.codegen[i] as u32, 7);
                    i += 1;
                }
                _ => {}
            }
        }
    }

    fn index_tokens(&mut self, tokens: &[u32]) -> (usize, usize) {
        self.literal_freq.iter_mut().for_each(|f| *f = 0);
        self.offset_freq.iter_mut().for_each(|f| *f = 0);
        for &t in tokens {
            if t < MATCH_TYPE {
                self.literal_freq[t as usize] += 1;
                continue;
            }
            let length = token_length(t);
            let offset = token_offset(t);
            self.literal_freq[LENGTH_CODES_START + length_code(length) as usize] += 1;
            self.offset_freq[offset_code(offset) as usize] += 1;
        }
        let mut num_literals = self.literal_freq.len();
        while self.literal_freq[num_literals - 1] == 0 {
            num_literals -= 1;
        }
        let mut num_offsets = self.offset_freq.len();
        while num_offsets > 0 && self.offset_freq[num_offsets - 1] == 0 {
            num_offsets -= 1;
        }
        if num_offsets == 0 {
            self.offset_freq[0] = 1;
            num_offsets = 1;
        }
        self.literal_encoding.generate(&self.literal_freq, 15);
        self.offset_encoding.generate(&self.offset_freq, 15);
        (num_literals, num_offsets)
    }

    fn write_block(&mut self, tokens: &[u32], eof: bool, input: Option<&[u8]>) {
        let mut tokens = tokens.to_vec();
        tokens.push(END_BLOCK_MARKER);
        let (num_literals, num_offsets) = self.index_tokens(&tokens);
        let mut extra_bits = 0isize;
        let stored = input.filter(|i| i.len() <= MAX_STORE_BLOCK_SIZE);
        let stored_size = stored.map(|i| (i.len() as isize + 5) * 8);
        if stored.is_some() {
            for length_code in LENGTH_CODES_START + 8..num_literals {
                extra_bits += self.literal_freq[length_code] as isize
                    * LENGTH_EXTRA_BITS[length_code - LENGTH_CODES_START] as isize;
            }
            for (freq, extra) in self.offset_freq[..num_offsets]
                .iter()
                .zip(OFFSET_EXTRA_BITS)
                .skip(4)
            {
                extra_bits += *freq as isize * extra as isize;
            }
        }
        let mut size = self.fixed_size(extra_bits);
        let mut fixed = true;
        self.generate_codegen(num_literals, num_offsets);
        let codegen_freq = self.codegen_freq;
        self.codegen_encoding.generate(&codegen_freq, 7);
        let (dynamic_size, num_codegens) = self.dynamic_size(extra_bits);
        if dynamic_size < size {
            size = dynamic_size;
            fixed = false;
        }
        if let (Some(input), Some(stored_size)) = (stored, stored_size)
            && stored_size < size
        {
            self.write_stored_header(input.len(), eof);
            self.write_bytes(input);
            return;
        }
        if fixed {
            self.write_fixed_header(eof);
        } else {
            self.write_dynamic_header(num_literals, num_offsets, num_codegens, eof);
        }
        let (lit, off) = if fixed {
            (
                self.fixed_literal.codes.clone(),
                self.fixed_offset.codes.clone(),
            )
        } else {
            (
                self.literal_encoding.codes.clone(),
                self.offset_encoding.codes.clone(),
            )
        };
        self.write_tokens(&tokens, &lit, &off);
    }

    fn write_tokens(&mut self, tokens: &[u32], le: &[HCode], oe: &[HCode]) {
        for &t in tokens {
            if t < MATCH_TYPE {
                self.write_code(le[t as usize]);
                continue;
            }
            let length = token_length(t);
            let lc = length_code(length) as usize;
            self.write_code(le[lc + LENGTH_CODES_START]);
            let extra = LENGTH_EXTRA_BITS[lc] as u32;
            if extra > 0 {
                self.write_bits(length - LENGTH_BASE[lc], extra);
            }
            let offset = token_offset(t);
            let oc = offset_code(offset) as usize;
            self.write_code(oe[oc]);
            let extra = OFFSET_EXTRA_BITS[oc] as u32;
            if extra > 0 {
                self.write_bits(offset - OFFSET_BASE[oc], extra);
            }
        }
    }
}

struct Compressor {
    w: BitWriter,
    window: Vec<u8>,
    index: isize,
    window_end: isize,
    block_start: isize,
    byte_available: bool,
    sync: bool,
    tokens: Vec<u32>,
    length: isize,
    offset: isize,
    max_insert_index: isize,
    chain_head: isize,
    hash_head: Vec<u32>,
    hash_prev: Vec<u32>,
    hash_offset: isize,
}

fn hash4(b: &[u8]) -> u32 {
    let v = u32::from(b[3])
        | (u32::from(b[2]) << 8)
        | (u32::from(b[1]) << 16)
        | (u32::from(b[0]) << 24);
    v.wrapping_mul(HASHMUL) >> (32 - HASH_BITS)
}

impl Compressor {
    fn new() -> Self {
        Compressor {
            w: BitWriter::new(),
            window: vec![0; 2 * WINDOW_SIZE as usize],
            index: 0,
            window_end: 0,
            block_start: 0,
            byte_available: false,
            sync: false,
            tokens: Vec::with_capacity(MAX_FLATE_BLOCK_TOKENS + 1),
            length: MIN_MATCH_LENGTH - 1,
            offset: 0,
            max_insert_index: 0,
            chain_head: -1,
            hash_head: vec![0; HASH_SIZE],
            hash_prev: vec![0; WINDOW_SIZE as usize],
            hash_offset: 1,
        }
    }

    fn fill(&mut self, b: &[u8]) -> usize {
        if self.index >= 2 * WINDOW_SIZE - (MIN_MATCH_LENGTH + MAX_MATCH_LENGTH) {
            let ws = WINDOW_SIZE as usize;
            self.window.copy_within(ws..2 * ws, 0);
            self.index -= WINDOW_SIZE;
            self.window_end -= WINDOW_SIZE;
            if self.block_start >= WINDOW_SIZE {
                self.block_start -= WINDOW_SIZE;
            } else {
                self.block_start = i32::MAX as isize;
            }
            self.hash_offset += WINDOW_SIZE;
            if self.hash_offset > MAX_HASH_OFFSET {
                let delta = self.hash_offset - 1;
                self.hash_offset -= delta;
                self.chain_head -= delta;
                for v in self.hash_prev.iter_mut().chain(self.hash_head.iter_mut()) {
                    *v = if *v as isize > delta {
                        (*v as isize - delta) as u32
                    } else {
                        0
                    };
                }
            }
        }
        let start = self.window_end as usize;
        let n = b.len().min(self.window.len() - start);
        self.window[start..start + n].copy_from_slice(&b[..n]);
        self.window_end += n as isize;
        n
    }

    fn write_block(&mut self, index: isize) {
        if index > 0 {
            let window = (self.block_start <= index)
                .then(|| self.window[self.block_start as usize..index as usize].to_vec());
            self.block_start = index;
            let tokens = std::mem::take(&mut self.tokens);
            self.w.write_block(&tokens, false, window.as_deref());
            self.tokens = tokens;
        }
    }

    fn find_match(
        &self,
        pos: isize,
        prev_head: isize,
        prev_length: isize,
        lookahead: isize,
    ) -> Option<(isize, isize)> {
        let min_match_look = lookahead.min(MAX_MATCH_LENGTH);
        let win = &self.window[..(pos + min_match_look) as usize];
        let nice = (win.len() as isize - pos).min(LEVEL.nice);
        let mut tries = LEVEL.chain;
        let mut length = prev_length;
        if length >= LEVEL.good {
            tries >>= 2;
        }
        let mut w_end = win[(pos + length) as usize];
        let w_pos = &win[pos as usize..];
        let min_index = pos - WINDOW_SIZE;
        let mut found = None;
        let mut i = prev_head;
        while tries > 0 {
            if w_end == win[(i + length) as usize] {
                let a = &win[i as usize..i as usize + min_match_look as usize];
                let b = &w_pos[..min_match_look as usize];
                let n = a.iter().zip(b).take_while(|(x, y)| x == y).count() as isize;
                if n > length && (n > MIN_MATCH_LENGTH || pos - i <= 4096) {
                    length = n;
                    found = Some((n, pos - i));
                    if n >= nice {
                        break;
                    }
                    w_end = win[(pos + n) as usize];
                }
            }
            if i == min_index {
                break;
            }
            i = self.hash_prev[(i & WINDOW_MASK) as usize] as isize - self.hash_offset;
            if i < min_index || i < 0 {
                break;
            }
            tries -= 1;
        }
        found
    }

    fn insert_hash(&mut self, index: isize) {
        let h = hash4(&self.window[index as usize..index as usize + 4]) & HASH_MASK;
        self.hash_prev[(index & WINDOW_MASK) as usize] = self.hash_head[h as usize];
        self.hash_head[h as usize] = (index + self.hash_offset) as u32;
    }

    fn deflate(&mut self) {
        if self.window_end - self.index < MIN_MATCH_LENGTH + MAX_MATCH_LENGTH && !self.sync {
            return;
        }
        self.max_insert_index = self.window_end - (MIN_MATCH_LENGTH - 1);
        loop {
            let lookahead = self.window_end - self.index;
            if lookahead < MIN_MATCH_LENGTH + MAX_MATCH_LENGTH {
                if !self.sync {
                    break;
                }
                if lookahead == 0 {
                    if self.byte_available {
                        let lit = self.window[(self.index - 1) as usize];
                        self.tokens.push(literal_token(u32::from(lit)));
                        self.byte_available = false;
                    }
                    if !self.tokens.is_empty() {
                        self.write_block(self.index);
                        self.tokens.clear();
                    }
                    break;
                }
            }
            if self.index < self.max_insert_index {
                let h =
                    hash4(&self.window[self.index as usize..self.index as usize + 4]) & HASH_MASK;
                self.chain_head = self.hash_head[h as usize] as isize;
                self.hash_prev[(self.index & WINDOW_MASK) as usize] = self.chain_head as u32;
                self.hash_head[h as usize] = (self.index + self.hash_offset) as u32;
            }
            let prev_length = self.length;
            let prev_offset = self.offset;
            self.length = MIN_MATCH_LENGTH - 1;
            self.offset = 0;
            let min_index = (self.index - WINDOW_SIZE).max(0);
            if self.chain_head - self.hash_offset >= min_index
                && lookahead > prev_length
                && prev_length < LEVEL.lazy
                && let Some((nl, no)) = self.find_match(
                    self.index,
                    self.chain_head - self.hash_offset,
                    MIN_MATCH_LENGTH - 1,
                    lookahead,
                )
            {
                self.length = nl;
                self.offset = no;
            }
            if prev_length >= MIN_MATCH_LENGTH && self.length <= prev_length {
                self.tokens.push(match_token(
                    (prev_length - BASE_MATCH_LENGTH) as u32,
                    (prev_offset - BASE_MATCH_OFFSET) as u32,
                ));
                let new_index = self.index + prev_length - 1;
                let mut index = self.index + 1;
                while index < new_index {
                    if index < self.max_insert_index {
                        self.insert_hash(index);
                    }
                    index += 1;
                }
                self.index = index;
                self.byte_available = false;
                self.length = MIN_MATCH_LENGTH - 1;
                if self.tokens.len() == MAX_FLATE_BLOCK_TOKENS {
                    self.write_block(self.index);
                    self.tokens.clear();
                }
            } else {
                if self.byte_available {
                    let i = self.index - 1;
                    self.tokens
                        .push(literal_token(u32::from(self.window[i as usize])));
                    if self.tokens.len() == MAX_FLATE_BLOCK_TOKENS {
                        self.write_block(i + 1);
                        self.tokens.clear();
                    }
                }
                self.index += 1;
                self.byte_available = true;
            }
        }
    }
}

/// The DEFLATE stream Go's `flate.NewWriter(w, flate.DefaultCompression)` writes for `data`
/// written at once and closed.
pub fn deflate(data: &[u8]) -> Vec<u8> {
    let mut d = Compressor::new();
    let mut b = data;
    while !b.is_empty() {
        d.deflate();
        let n = d.fill(b);
        b = &b[n..];
    }
    d.sync = true;
    d.deflate();
    d.w.write_stored_header(0, true);
    d.w.flush();
    d.w.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_code_tables_are_go_s() {
        // Spot checks of token.go's lengthCodes and offsetCodes.
        for (len, code) in [(0, 0), (8, 8), (9, 8), (10, 9), (254, 27), (255, 28)] {
            assert_eq!(length_code(len), code, "lengthCodes[{len}]");
        }
        for (off, code) in [(0, 0), (4, 4), (5, 4), (255, 15), (256, 16), (32767, 29)] {
            assert_eq!(offset_code(off), code, "offsetCode({off})");
        }
    }

    #[test]
    fn empty_input_is_an_empty_final_stored_block() {
        // Go: flate.NewWriter(&buf, -1); w.Close() → 01 00 00 ff ff
        assert_eq!(deflate(b""), vec![0x01, 0x00, 0x00, 0xff, 0xff]);
    }
}
