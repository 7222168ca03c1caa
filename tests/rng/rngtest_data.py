"""Input files for comparing `cryptoaccel rngtest` with rng-tools' rngtest.

Deterministic (seeded) data: good random data, biased data, stuck sources,
periodic patterns, blocks crafted so that rngtest's bookkeeping quirks at
block boundaries decide a test's outcome, and truncated inputs. The crafted
blocks are checked here with a bit-at-a-time model of rngtest's counting
(docs/rng.md), so that each one is known to turn on its quirk; the
comparison then shows that the real rngtest and ours agree on them.

Standard library only.
"""

import random

BLOCK = 2500
RUN_LOW = (2315, 1114, 527, 240, 103, 103)
RUN_HIGH = (2685, 1386, 723, 384, 209, 209)


def bits_of(data):
    for byte in data:
        for j in range(7, -1, -1):
            yield (byte >> j) & 1


def pack(bits):
    out = bytearray()
    for i in range(0, len(bits), 8):
        v = 0
        for b in bits[i:i + 8]:
            v = (v << 1) | b
        out.append(v)
    return bytes(out)


def model_block(block, last_bit):
    """rngtest's counts for one block after a block that ended in last_bit:
    (failure flags without the continuous test, counters, new last bit)."""
    counters = [0] * 28  # poker[16] then runs[12]: index 15 is runs[-1]
    ones, length, bit = 0, -1, 0
    long_run = False
    for byte in block:
        counters[byte >> 4] += 1
        counters[byte & 15] += 1
    for bit in bits_of(block):
        ones += bit
        if bit != last_bit:
            counters[16 + min(length, 5) + 6 * bit] += 1
            long_run |= length >= 25
            length = 0
            last_bit = bit
        else:
            length += 1
    counters[16 + min(length, 5) + 6 * bit] += 1
    long_run |= length >= 25
    poker, runs = counters[:16], counters[16:]
    flags = 0
    if ones >= 10275 or ones <= 9725:
        flags |= 1
    j = sum(c * c for c in poker)
    if j > 1576928 or j < 1563176:
        flags |= 2
    if any(not RUN_LOW[i % 6] <= runs[i] <= RUN_HIGH[i % 6] for i in range(12)):
        flags |= 4
    if long_run:
        flags |= 8
    return flags, poker, runs, last_bit


def random_block(rng, first=None, last=None):
    data = bytearray(rng.randbytes(BLOCK))
    if first is not None:
        data[0] = data[0] | 0x80 if first else data[0] & 0x7F
    if last is not None:
        data[-1] = data[-1] | 1 if last else data[-1] & 0xFE
    return bytes(data)


def runs_block(rng, ones_counts, zeros_counts, first, final_length):
    """A block from run counts per length (1..5 and 6+) for runs of ones and
    of zeros, alternating from `first`; the last run has `final_length`
    (the run counts include it). Long runs get lengths 6..25 that fill
    the block to 20000 bits exactly."""
    runs = {1: [], 0: []}
    for value, counts in ((1, ones_counts), (0, zeros_counts)):
        for length, n in enumerate(counts[:5], start=1):
            runs[value] += [length] * n
        runs[value] += [6] * counts[5]
    n1, n0 = len(runs[1]), len(runs[0])
    last_value = first if (n1 + n0) % 2 == 1 else 1 - first
    assert n1 == n0 or len(runs[first]) == len(runs[1 - first]) + 1
    for value in (0, 1):
        rng.shuffle(runs[value])
    # The final run: take one of the right length out, put it at the end.
    final = runs[last_value]
    final.remove(final_length)
    spare = 20000 - sum(runs[1]) - sum(runs[0]) - final_length
    long_ones = [i for v in (0, 1) for i in range(len(runs[v])) if runs[v][i] == 6]
    slots = [(v, i) for v in (0, 1) for i in range(len(runs[v])) if runs[v][i] >= 6]
    assert spare >= 0 and long_ones
    while spare > 0:
        v, i = rng.choice(slots)
        if runs[v][i] < 20:
            runs[v][i] += 1
            spare -= 1
    bits, value = [], first
    while runs[0] or runs[1]:
        bits += [value] * runs[value].pop()
        value = 1 - value
    assert value == last_value
    bits += [last_value] * final_length
    assert len(bits) == 20000
    return pack(bits)


def crafted_runs_blocks(rng):
    """Blocks whose runs test depends on a quirk, each checked with the model:
    (name, block, previous last bit, expected flags)."""
    cases = []
    # runs[5] at 209; a first bit 1 after a 0 adds the run of length 0 there.
    for first_attempt in range(200):
        block = runs_block(rng, [2450, 1225, 610, 305, 150, 209], [2450, 1225, 610, 305, 150, 208],
                           first=1, final_length=1)
        if model_block(block, 1)[0] == 0 and model_block(block, 0)[0] == 4:
            cases.append(("runs-5-quirk", block))
            break
    # The final run is filed under its own value: 2685 runs of single zeros
    # plus a final single one make runs[6] 2686.
    for attempt in range(200):
        block = runs_block(rng, [2590, 1290, 635, 315, 155, 160], [2685, 1250, 630, 310, 155, 115],
                           first=0, final_length=1)
        flags = model_block(block, 0)[0]
        runs = model_block(block, 0)[2]
        if flags == 4 and runs[6] == 2686:
            cases.append(("final-run-label", block))
            break
    assert len(cases) == 2, "could not craft the runs blocks"
    return cases


def poker_block(rng, target_low):
    """A block that starts with a 0 bit whose poker sum sits next to a bound
    so that the extra poker[15] count of a 1 -> 0 boundary flips the result:
    over the upper bound (target_low False) or up to the lower one."""
    for attempt in range(2000):
        counts = [312] * 16
        counts[0] += 8
        # Spread the counts until the sum of squares is next to the bound.
        while True:
            j = sum(c * c for c in counts)
            c15 = counts[15]
            if target_low and j < 1563176 <= j + 2 * c15 + 1:
                break
            if not target_low and j <= 1576928 < j + 2 * c15 + 1:
                break
            if (target_low and j >= 1563176) or (not target_low and j > 1576928):
                counts = None
                break
            a, b = rng.sample(range(16), 2)
            if counts[a] >= counts[b]:
                counts[a] += 1
                counts[b] -= 1
        if counts is None:
            continue
        nibbles = [n for n in range(16) for _ in range(counts[n])]
        rng.shuffle(nibbles)
        first = [i for i, n in enumerate(nibbles) if n < 8][0]
        nibbles[0], nibbles[first] = nibbles[first], nibbles[0]
        block = bytes((nibbles[i] << 4) | nibbles[i + 1] for i in range(0, 5000, 2))
        after_one, after_zero = model_block(block, 1)[0], model_block(block, 0)[0]
        want = (0, 2) if target_low else (2, 0)
        if (after_one, after_zero) == want:
            return block
    raise AssertionError("could not craft the poker block")


def boundary_stream(rng):
    """Crafted blocks, each after a block that sets the previous bit both
    ways, plus long runs that end at or cross block boundaries."""
    crafted = crafted_runs_blocks(rng)
    crafted.append(("poker-quirk-up", poker_block(rng, False)))
    crafted.append(("poker-quirk-low", poker_block(rng, True)))
    blocks = []
    for _, block in crafted:
        for previous in (0, 1):
            blocks.append(random_block(rng, last=previous))
            blocks.append(block)
    # Runs of 20 on each side of a boundary (no long run), 26 at a block's
    # end, and a 32-bit word repeated across the boundary.
    a = bytearray(random_block(rng))
    b = bytearray(random_block(rng))
    a[-2:] = b"\x00\x00"
    a[-3] = (a[-3] & 0xE0) | 0x10  # the last 20 bits of a are zeros
    b[0:2] = b"\x00\x00"
    b[2] = (b[2] & 0x07) | 0x08  # and the first 20 of b
    blocks += [bytes(a), bytes(b)]
    c = bytearray(random_block(rng))
    c[-3:] = b"\xff\xff\xff"
    c[-4] = (c[-4] & 0xF8) | 0x03  # 26 ones end the block: a long run
    blocks.append(bytes(c))
    d = bytearray(random_block(rng))
    d[0:4] = c[-4:]  # its first word repeats c's last
    blocks.append(bytes(d))
    return b"".join(blocks)


def biased(rng, p, blocks):
    weights = [p ** bin(b).count("1") * (1 - p) ** (8 - bin(b).count("1")) for b in range(256)]
    return bytes(rng.choices(range(256), weights=weights, k=blocks * BLOCK))


def datasets():
    """{name: bytes}"""
    rng = random.Random(20240607)
    good = rng.randbytes(2500 * 300 + 4)
    out = {
        "good": good,
        "good-truncated": good[:2500 * 40 + 4 + 1234],
        "biased-0.51": biased(rng, 0.51, 60) + b"\x00\x01\x02\x03",
        "biased-0.45": biased(rng, 0.45, 30),
        "stuck-zeros": bytes(2500 * 10 + 4),
        "stuck-ones": b"\xff" * (2500 * 10 + 4),
        "stuck-later": rng.randbytes(2500 * 5) + bytes(2500 * 5 + 100),
        "periodic-0x55": b"\x55" * (2500 * 8 + 4),
        "periodic-block": rng.randbytes(2500) * 12 + b"abcd",
        "periodic-word": b"\x12\x34\x56\x78" * 6251,
        "boundaries": rng.randbytes(4) + boundary_stream(rng),
        "empty": b"",
        "3-bytes": b"\x01\x02\x03",
        "4-bytes": b"\x01\x02\x03\x04",
        "7-bytes": b"\x01\x02\x03\x04\x05\x06\x07",
        "short-block": rng.randbytes(2503),
        "one-block": good[:2504],
        "one-block-pipe": good[:2508],
        "block-and-a-bit": good[:2504 + 2500 + 1],
    }
    return out
