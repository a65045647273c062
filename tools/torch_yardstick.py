#!/usr/bin/env python3
"""torch_yardstick.py — a PyTorch yardstick for the GPU benchmarks: our exact network in PyTorch.

A YARDSTICK, never a dependency of the project: nothing in the build, the tests or training imports
or runs it.  It answers "how fast would a framework run this very network on this GPU?", so that
our own CUDA kernels (src/cuda, `make bench-gpu`) can be judged against a sensible reference.

The network is src/nn/model.h's, on the same rows layout x[N][P][planes] (P on-board cells,
channels last):
  hex 3x3 conv = a gather of the 7 neighbour rows through the neighbour table (built here exactly
  as src/nn/geom.c builds it from src/game/board.c; an off-board tap reads a zero row), then a
  matmul with w[7][Ci][Co] reshaped to [7*Ci][Co];  BN over the N*P rows per channel (eval: the
  running statistics; train: batch statistics, running statistics updated with our momentum);
  stem, B residual blocks, policy head (1x1 C->Cp, BN, ReLU, 1x1 Cp->6 + bias -> logits[N][P][6]),
  value head (1x1 C->Cv, BN, ReLU, flatten [N][P*Cv] (cell-major, channel fastest), dense -> Vh + b,
  ReLU, dense -> 1 + b, tanh).  Weights come from our own checkpoint file (src/nn/checkpoint.h),
  read here in pure Python (struct + zlib.crc32).

Modes (torch is imported only where needed; torch and numpy are not needed for the first three):
  --selftest-loader CKPT   load and verify a checkpoint (CRC, header, every tensor against the
                           architecture its config implies), print a summary
  --selftest-dump DUMP     parse a dump written by tools/nn_dump (its neighbour table must equal
                           ours), print its shape
  --check-pure DUMP CKPT   a pure-Python float64 forward of the first --pure-samples positions
                           against the dump (proves architecture and neighbour table match ours)
  --check DUMP --ckpt CKPT the torch forward (eval, fp32, TF32 off) against the dump; exit 1 when
                           the relative error exceeds --tolerance (1e-4)
  (default)                benchmark: inference positions/s at --batches in eager fp32, eager bf16
                           autocast, torch.compile, CUDA-graph captured eager; training samples/s
                           at --train-batches (one SGD step: momentum 0.9, weight decay 1e-4 on
                           conv/dense weights, lr 0.02), eager and compiled; --json OUT.  A run
                           that fails (e.g. torch.compile) is reported as FAILED and the others
                           go on; exit 1 only when every run failed.
  fp32 modes run with TF32 off (--tf32 allows it).  Inference is timed with inputs and outputs on
  the device unless --host-io (pinned host -> device -> host each call, like bench_nn --gpu).
  torch.compile(mode="max-autotune") tunes every batch size and may take minutes each: pass
  --compile-mode default, or --modes, to keep a run short.

Example:
  tools/nn_dump --board 37 --perturb --save-ckpt /tmp/y.ckpt --n 64 --seed 1 --out /tmp/y.dump
  python3 tools/torch_yardstick.py --check /tmp/y.dump --ckpt /tmp/y.ckpt
  python3 tools/torch_yardstick.py --ckpt /tmp/y.ckpt --json /tmp/yardstick.json
"""

import argparse
import array
import copy
import json
import math
import os
import shlex
import statistics
import struct
import sys
import time
import zlib

PROG = "torch_yardstick"

NN_PLANES = 16          # src/nn/encode.h
NN_HEADS = 6            # src/nn/model.h
NN_TAPS = 7             # src/nn/geom.h
CKPT_VERSION = 1        # src/nn/checkpoint.h NN_CKPT_VERSION
CKPT_MAGIC = b"ZZNNCKPT"
CKPT_HEADER_BYTES = 64
DUMP_MAGIC = b"ZZNNDUMP"
DUMP_VERSION = 1
KIND_PARAM, KIND_STAT, KIND_MOM = 0, 1, 2


class YardstickError(Exception):
    """A problem with an input file or an argument: reported as one line, exit 1."""


def die(msg, code=1):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(code)


# ---- board geometry: src/game/board.c (SPECS, build_board) and src/nn/geom.c (nn_geom_init) ------

# rings: (ncols, n_in_col, first_in_col), Boardspace's nInCol / firstInCol, zz_board_kind 0, 1, 2
BOARD_SPECS = {
    37: (7, (4, 5, 6, 7, 6, 5, 4), (3, 2, 1, 0, 1, 2, 3)),
    48: (8, (5, 6, 7, 8, 7, 6, 5, 4), (3, 2, 1, 0, 1, 2, 3, 4)),
    61: (9, (5, 6, 7, 8, 9, 8, 7, 6, 5), (4, 3, 2, 1, 0, 1, 2, 3, 4)),
}
BOARD_KIND_RINGS = (37, 48, 61)     # zz_board_kind ZZ_B37 = 0, ZZ_B48 = 1, ZZ_B61 = 2
ZZ_STRIDE = 10
# The seven live taps in raster order of (da, dq) (geom.h): NN_TAP_DQ / NN_TAP_DA.
TAP_DQ = (-1, 0, -1, 0, 1, 0, 1)
TAP_DA = (-1, -1, 0, 0, 0, 1, 1)


def _cdiv(a, b):
    """C integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def cell_of(q, a):
    return (a + 1) * ZZ_STRIDE + (q + 1)


class Geom:
    """nn_geom: on-board cells in order (column-major a1, a2, .., b1, ..) and the neighbour table."""

    def __init__(self, rings):
        if rings not in BOARD_SPECS:
            raise YardstickError(f"no board with {rings} rings (37, 48 or 61)")
        ncols, n_in_col, first = BOARD_SPECS[rings]
        parity = first[0] & 1
        a0s = [_cdiv(first[c] + c - parity, 2) for c in range(ncols)]
        amin = min(a0s)
        amax = max(a0s[c] + n_in_col[c] - 1 for c in range(ncols))
        self.rings = rings
        self.grid_w = ncols
        self.grid_h = amax - amin + 1
        self.cells = []
        for c in range(ncols):
            a0 = a0s[c] - amin
            for r in range(1, n_in_col[c] + 1):
                self.cells.append(cell_of(c, a0 + r - 1))
        self.ncells = len(self.cells)
        index = {cell: i for i, cell in enumerate(self.cells)}
        self.nb = []                    # nb[i][t]: row of tap t's neighbour of row i, or -1
        for cell in self.cells:
            q, a = cell % ZZ_STRIDE - 1, cell // ZZ_STRIDE - 1
            row = []
            for t in range(NN_TAPS):
                q2, a2 = q + TAP_DQ[t], a + TAP_DA[t]
                j = -1
                if 0 <= q2 < self.grid_w and 0 <= a2 < self.grid_h:
                    j = index.get(cell_of(q2, a2), -1)
                row.append(j)
            self.nb.append(row)


# ---- architecture: src/nn/model.c (nn_config_default, nn_config_check, build_views) -------------

class Config:
    FIELDS = ("rings", "channels", "blocks", "policy_channels", "value_channels", "value_hidden",
              "bn_momentum", "bn_eps")

    def __init__(self, **kw):
        for f in self.FIELDS:
            setattr(self, f, kw[f])

    @classmethod
    def default(cls, rings):
        return cls(rings=rings, channels=64, blocks=8 if rings == 61 else 6, policy_channels=32,
                   value_channels=4, value_hidden=128, bn_momentum=0.05, bn_eps=1e-5)

    def check(self):
        """nn_config_check; raises YardstickError."""
        if self.rings not in BOARD_SPECS:
            raise YardstickError(f"no board with {self.rings} rings")
        for name, v, lo, hi in (("channels", self.channels, 1, 1024), ("blocks", self.blocks, 0, 64),
                                ("policy channels", self.policy_channels, 1, 1024),
                                ("value channels", self.value_channels, 1, 64),
                                ("value hidden", self.value_hidden, 1, 4096)):
            if not lo <= v <= hi:
                raise YardstickError(f"{name} {v} not in {lo}..{hi}")
        if not 0 <= self.bn_momentum <= 1:
            raise YardstickError("bn momentum not in [0,1]")
        if not 0 < self.bn_eps < 1:
            raise YardstickError("bn eps not in (0,1)")

    def describe(self):
        return (f"{self.rings} rings, {self.blocks} blocks x {self.channels} channels, policy {self.policy_channels}, "
                f"value {self.value_channels}/{self.value_hidden}, bn eps {self.bn_eps:g} momentum {self.bn_momentum:g}")


def expected_views(cfg, P):
    """build_views' tensors in order: (name, stat, shape, decay)."""
    C, Cp, Cv, Vh = cfg.channels, cfg.policy_channels, cfg.value_channels, cfg.value_hidden
    views = []

    def conv(name, taps, ci, co):
        views.append((name, False, (taps, ci, co) if taps > 1 else (ci, co), True))

    def bn(prefix, c):
        views.extend([(prefix + ".gamma", False, (c,), False), (prefix + ".beta", False, (c,), False),
                      (prefix + ".mean", True, (c,), False), (prefix + ".var", True, (c,), False)])

    conv("stem.conv.w", NN_TAPS, NN_PLANES, C)
    bn("stem.bn", C)
    for b in range(cfg.blocks):
        conv(f"block{b}.conv1.w", NN_TAPS, C, C)
        bn(f"block{b}.bn1", C)
        conv(f"block{b}.conv2.w", NN_TAPS, C, C)
        bn(f"block{b}.bn2", C)
    conv("policy.conv1.w", 1, C, Cp)
    bn("policy.bn", Cp)
    conv("policy.conv2.w", 1, Cp, NN_HEADS)
    views.append(("policy.conv2.b", False, (NN_HEADS,), False))
    conv("value.conv.w", 1, C, Cv)
    bn("value.bn", Cv)
    conv("value.fc1.w", 1, P * Cv, Vh)
    views.append(("value.fc1.b", False, (Vh,), False))
    conv("value.fc2.w", 1, Vh, 1)
    views.append(("value.fc2.b", False, (1,), False))
    return views


def model_flops(cfg, P):
    """nn_model_flops: forward FLOPs per sample (multiply-add = 2, 7 taps per cell)."""
    C, Cp, Cv, Vh = cfg.channels, cfg.policy_channels, cfg.value_channels, cfg.value_hidden
    f = 2.0 * P * NN_TAPS * NN_PLANES * C
    f += cfg.blocks * 2 * 2.0 * P * NN_TAPS * C * C
    f += 2.0 * P * (C * Cp + Cp * NN_HEADS)
    f += 2.0 * P * C * Cv
    f += 2.0 * (P * Cv * Vh + Vh)
    return f


def _count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _floats(data, at, count, typecode):
    """count little-endian floats ('f' or 'd') from data at byte offset `at`, as an array."""
    a = array.array(typecode)
    a.frombytes(data[at:at + count * a.itemsize])
    if sys.byteorder != "little":
        a.byteswap()
    return a


# ---- checkpoint: src/nn/checkpoint.h / .c -----------------------------------------------------

def read_bytes(path):
    """A whole file's bytes, or YardstickError naming the file."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise YardstickError(f"{path}: cannot open: {e.strerror}") from None


class Checkpoint:
    """A loaded checkpoint: cfg, dtype ('float32'/'float64'), step, tensors {view name: (shape, array)}
    for parameters and BN statistics, momenta {name: (shape, array)} when the file has them."""

    def __init__(self, path):
        self.path = path
        data = read_bytes(path)
        n = len(data)
        if n < 16 + CKPT_HEADER_BYTES + 4:
            raise YardstickError(f"{path}: truncated ({n} bytes): not a checkpoint")
        if data[:8] != CKPT_MAGIC:
            raise YardstickError(f"{path}: not a zertz network checkpoint (bad magic)")
        version, hbytes = struct.unpack_from("<II", data, 8)
        if version != CKPT_VERSION:
            raise YardstickError(f"{path}: checkpoint version {version}, this script reads {CKPT_VERSION}")
        (stored,) = struct.unpack_from("<I", data, n - 4)
        if zlib.crc32(data[:n - 4]) & 0xFFFFFFFF != stored:
            raise YardstickError(f"{path}: checksum mismatch: the file is damaged or truncated")
        # checkpoint.c accepts header sizes from 52; its fields take 56 bytes, so ask for those.
        if hbytes < 56 or hbytes > n - 20:
            raise YardstickError(f"{path}: bad header size {hbytes}")
        (dtype, board, planes, C, B, Cp, Cv, Vh, mom, eps, step, flags,
         ntensors) = struct.unpack_from("<8I2fQ2I", data, 16)
        if dtype > 1:
            raise YardstickError(f"{path}: unknown element type {dtype}")
        if planes != NN_PLANES:
            raise YardstickError(f"{path}: made for {planes} input planes, our encoder has {NN_PLANES}")
        if board >= len(BOARD_KIND_RINGS):
            raise YardstickError(f"{path}: bad architecture: board kind {board} is not 0..2")
        self.cfg = Config(rings=BOARD_KIND_RINGS[board], channels=C, blocks=B, policy_channels=Cp,
                          value_channels=Cv, value_hidden=Vh, bn_momentum=mom, bn_eps=eps)
        try:
            self.cfg.check()
        except YardstickError as e:
            raise YardstickError(f"{path}: bad architecture: {e}") from None
        self.version = version
        self.dtype = "float64" if dtype else "float32"
        self.step = step
        self.has_momenta = bool(flags & 1)
        self.ntensors = ntensors
        self.geom = Geom(self.cfg.rings)
        self.views = expected_views(self.cfg, self.geom.ncells)
        self.tensors, self.momenta = {}, {}
        self._read_tensors(data, 16 + hbytes, n - 4, "d" if dtype else "f")

    def _read_tensors(self, data, at, end, typecode):
        path = self.path
        es = 8 if typecode == "d" else 4
        byname = {v[0]: v for v in self.views}
        for k in range(self.ntensors):
            if end - at < 2:
                raise YardstickError(f"{path}: truncated in tensor {k}")
            kind, length = data[at], data[at + 1]
            at += 2
            if end - at < length:
                raise YardstickError(f"{path}: truncated in tensor {k}")
            name = data[at:at + length].decode("latin-1")
            at += length
            v = byname.get(name)
            if v is None or kind > KIND_MOM or (kind == KIND_STAT) != v[1]:
                raise YardstickError(f"{path}: tensor '{name}' is not part of this network")
            if end - at < 1:
                raise YardstickError(f"{path}: truncated in tensor '{name}'")
            ndim = data[at]
            at += 1
            if end - at < 4 * ndim:
                raise YardstickError(f"{path}: truncated in tensor '{name}'")
            dims = struct.unpack_from(f"<{ndim}I", data, at)
            at += 4 * ndim
            if tuple(dims) != v[2]:
                raise YardstickError(f"{path}: tensor '{name}' has shape {list(dims)}, the architecture "
                                     f"says {list(v[2])}")
            count = _count(v[2])
            if end - at < count * es:
                raise YardstickError(f"{path}: truncated in tensor '{name}'")
            into = self.momenta if kind == KIND_MOM else self.tensors
            if name in into:
                raise YardstickError(f"{path}: tensor '{name}' appears twice")
            into[name] = (v[2], _floats(data, at, count, typecode))
            at += count * es
        if at != end:
            raise YardstickError(f"{path}: {end - at} unexpected bytes after the tensors")
        for name, _stat, _shape, _decay in self.views:
            if name not in self.tensors:
                raise YardstickError(f"{path}: tensor '{name}' is missing")

    def nparams(self):
        return sum(_count(s) for name, stat, s, _d in self.views if not stat)

    def nstats(self):
        return sum(_count(s) for name, stat, s, _d in self.views if stat)

    def get(self, name):
        return self.tensors[name][1]


# ---- dump: tools/nn_dump.c ----------------------------------------------------------------------

class Dump:
    """A dump of tools/nn_dump: rings, N, P, planes, heads, taps, nb, x, logits, values (arrays)."""

    def __init__(self, path):
        self.path = path
        data = read_bytes(path)
        hdr = struct.Struct("<8s7I")
        if len(data) < hdr.size + 4:
            raise YardstickError(f"{path}: truncated ({len(data)} bytes): not a network dump")
        magic, version, rings, N, P, planes, heads, taps = hdr.unpack_from(data, 0)
        if magic != DUMP_MAGIC:
            raise YardstickError(f"{path}: not a network dump of tools/nn_dump (bad magic)")
        if version != DUMP_VERSION:
            raise YardstickError(f"{path}: dump version {version}, this script reads {DUMP_VERSION}")
        if planes != NN_PLANES or heads != NN_HEADS or taps != NN_TAPS:
            raise YardstickError(f"{path}: {planes} planes, {heads} heads, {taps} taps; expected "
                                 f"{NN_PLANES}, {NN_HEADS}, {NN_TAPS}")
        if rings not in BOARD_SPECS:
            raise YardstickError(f"{path}: no board with {rings} rings")
        self.geom = Geom(rings)
        if P != self.geom.ncells:
            raise YardstickError(f"{path}: P = {P}, but the {rings}-ring board has {self.geom.ncells} cells")
        if N < 1:
            raise YardstickError(f"{path}: no positions")
        size = hdr.size + 4 * (P * taps + N * P * planes + N * P * heads + N) + 4
        if len(data) != size:
            raise YardstickError(f"{path}: {len(data)} bytes, the header implies {size}: truncated or damaged")
        (stored,) = struct.unpack_from("<I", data, size - 4)
        if zlib.crc32(data[:size - 4]) & 0xFFFFFFFF != stored:
            raise YardstickError(f"{path}: checksum mismatch: the file is damaged")
        self.rings, self.N, self.P, self.planes, self.heads, self.taps = rings, N, P, planes, heads, taps
        at = hdr.size
        flat = struct.unpack_from(f"<{P * taps}i", data, at)
        at += 4 * P * taps
        self.nb = [list(flat[i * taps:(i + 1) * taps]) for i in range(P)]
        self.x = _floats(data, at, N * P * planes, "f")
        at += 4 * N * P * planes
        self.logits = _floats(data, at, N * P * heads, "f")
        at += 4 * N * P * heads
        self.values = _floats(data, at, N, "f")
        for i in range(P):
            for t in range(taps):
                if self.nb[i][t] != self.geom.nb[i][t]:
                    raise YardstickError(f"{path}: the C neighbour table differs from this script's at row "
                                         f"{i} tap {t}: {self.nb[i][t]} vs {self.geom.nb[i][t]}")


# ---- comparison ---------------------------------------------------------------------------------

def rel_error(got, ref, floor=1e-3):
    """max |got - ref| over the elements, relative to the largest |ref| (at least `floor`)."""
    scale = max(floor, max(abs(r) for r in ref))
    return max(abs(g - r) for g, r in zip(got, ref)) / scale


# ---- a pure-Python float64 reference forward (one sample at a time) -------------------------------

def _rows_of(flat, P, C, off=0):
    return [list(flat[off + i * C: off + (i + 1) * C]) for i in range(P)]


def _conv_rows(rows, w, taps, ci, co, nb, bias=None):
    """y[i] = sum_t sum_c rows[nb[i][t]][c] * w[t][c][:] (+ bias); taps == 1: a matmul (nb unused)."""
    wr = [list(w[k * co:(k + 1) * co]) for k in range(taps * ci)]
    out = []
    for i in range(len(rows)):
        acc = list(bias) if bias is not None else [0.0] * co
        for t in range(taps):
            j = nb[i][t] if taps > 1 else i
            if j < 0:
                continue
            xr, base = rows[j], t * ci
            for c in range(ci):
                a = xr[c]
                if a:
                    acc = [s + a * v for s, v in zip(acc, wr[base + c])]
        out.append(acc)
    return out


def _bn_rows(rows, ck, prefix, relu):
    g, b = ck.get(prefix + ".gamma"), ck.get(prefix + ".beta")
    m, v = ck.get(prefix + ".mean"), ck.get(prefix + ".var")
    eps = ck.cfg.bn_eps
    s = [g[c] / math.sqrt(v[c] + eps) for c in range(len(g))]
    out = []
    for r in rows:
        y = [(r[c] - m[c]) * s[c] + b[c] for c in range(len(r))]
        out.append([max(0.0, e) for e in y] if relu else y)
    return out


def pure_forward(ck, x_rows):
    """Our network, inference mode (BN on running statistics), on one sample x_rows[P][16]."""
    cfg, nb = ck.cfg, ck.geom.nb
    C = cfg.channels
    h = _conv_rows(x_rows, ck.get("stem.conv.w"), NN_TAPS, NN_PLANES, C, nb)
    h = _bn_rows(h, ck, "stem.bn", True)
    for b in range(cfg.blocks):
        u = _conv_rows(h, ck.get(f"block{b}.conv1.w"), NN_TAPS, C, C, nb)
        u = _bn_rows(u, ck, f"block{b}.bn1", True)
        u = _conv_rows(u, ck.get(f"block{b}.conv2.w"), NN_TAPS, C, C, nb)
        u = _bn_rows(u, ck, f"block{b}.bn2", False)
        h = [[max(0.0, a + s) for a, s in zip(ur, hr)] for ur, hr in zip(u, h)]
    p = _conv_rows(h, ck.get("policy.conv1.w"), 1, C, cfg.policy_channels, nb)
    p = _bn_rows(p, ck, "policy.bn", True)
    logits = _conv_rows(p, ck.get("policy.conv2.w"), 1, cfg.policy_channels, NN_HEADS, nb,
                        bias=ck.get("policy.conv2.b"))
    v = _conv_rows(h, ck.get("value.conv.w"), 1, C, cfg.value_channels, nb)
    v = _bn_rows(v, ck, "value.bn", True)
    flat = [e for r in v for e in r]                     # [P*Cv]: cell-major, channel fastest
    v = _conv_rows([flat], ck.get("value.fc1.w"), 1, len(flat), cfg.value_hidden, nb, bias=ck.get("value.fc1.b"))
    v = [[max(0.0, e) for e in v[0]]]
    v = _conv_rows(v, ck.get("value.fc2.w"), 1, cfg.value_hidden, 1, nb, bias=ck.get("value.fc2.b"))
    return [e for r in logits for e in r], math.tanh(v[0][0])


# ---- the no-torch modes -----------------------------------------------------------------------

def selftest_loader(path):
    ck = Checkpoint(path)
    cfg = ck.cfg
    nonfinite = [name for name, (_s, a) in ck.tensors.items() if not all(math.isfinite(e) for e in a)]
    print(f"checkpoint: {path}")
    print(f"  format version {ck.version}, {ck.dtype}, SGD step {ck.step}, momenta {'yes' if ck.has_momenta else 'no'}, "
          f"CRC-32 ok")
    print(f"  board {cfg.rings} rings (P = {ck.geom.ncells}, grid {ck.geom.grid_h}x{ck.geom.grid_w}), "
          f"C = {cfg.channels}, B = {cfg.blocks}, policy channels {cfg.policy_channels}, "
          f"value channels {cfg.value_channels}, value hidden {cfg.value_hidden}")
    print(f"  bn eps {cfg.bn_eps:g}, bn momentum {cfg.bn_momentum:g}")
    print(f"  {ck.ntensors} tensors in the file; {len(ck.views)} views match the architecture "
          f"({sum(1 for v in ck.views if not v[1])} parameter, {sum(1 for v in ck.views if v[1])} BN statistic"
          f"{', + momenta' if ck.momenta else ''})")
    print(f"  parameters {ck.nparams():,}, BN statistics {ck.nstats():,}; "
          f"{model_flops(cfg, ck.geom.ncells) / 1e6:.1f} MFLOP per position forward")
    if nonfinite:
        raise YardstickError(f"{path}: non-finite values in {', '.join(nonfinite[:5])}")
    print("selftest-loader: ok")


def selftest_dump(path):
    d = Dump(path)
    print(f"dump: {path}")
    print(f"  {d.rings} rings: N = {d.N}, P = {d.P}, planes = {d.planes}, heads = {d.heads}, taps = {d.taps}; CRC-32 ok")
    print(f"  neighbour table equals this script's ({d.P} rows x {d.taps} taps, "
          f"{sum(1 for r in d.nb for j in r if j < 0)} off-board taps)")
    print(f"  x[{d.N}][{d.P}][{d.planes}] in [{min(d.x):g}, {max(d.x):g}], logits[{d.N}][{d.P}][{d.heads}] "
          f"in [{min(d.logits):.4g}, {max(d.logits):.4g}], values[{d.N}] in [{min(d.values):.4g}, {max(d.values):.4g}]")
    on_board = all(d.x[r * d.planes + 6] == 1.0 for r in range(d.N * d.P))
    print(f"  plane 6 ('on the board', encode.h) is 1 on every row: {'yes' if on_board else 'NO'}")
    print("selftest-dump: ok")


def check_pure(dump_path, ckpt_path, samples, tol):
    d, ck = Dump(dump_path), Checkpoint(ckpt_path)
    if d.rings != ck.cfg.rings:
        raise YardstickError(f"{dump_path} is for {d.rings} rings, {ckpt_path} for {ck.cfg.rings}")
    samples = max(1, min(samples, d.N))
    P, L = d.P, d.P * NN_HEADS
    worst_l = worst_v = 0.0
    vs_got, vs_ref = [], []
    for n in range(samples):
        t0 = time.perf_counter()
        logits, value = pure_forward(ck, _rows_of(d.x, P, NN_PLANES, n * P * NN_PLANES))
        ref = d.logits[n * L:(n + 1) * L]
        el = rel_error(logits, ref)
        worst_l = max(worst_l, el)
        vs_got.append(value)
        vs_ref.append(d.values[n])
        print(f"  sample {n}: logits rel err {el:.2e}, value {value:.6f} vs {d.values[n]:.6f} "
              f"({time.perf_counter() - t0:.1f} s)")
    worst_v = rel_error(vs_got, vs_ref)
    ok = worst_l <= tol and worst_v <= tol
    print(f"check-pure: {samples} of {d.N} positions, pure-Python float64 forward vs our C forward: "
          f"logits max rel err {worst_l:.2e}, values max rel err {worst_v:.2e} (tolerance {tol:g}): "
          f"{'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


# ---- torch ----------------------------------------------------------------------------------------

def import_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        die("torch not installed: this script is a yardstick for GPU machines "
            "(--selftest-loader, --selftest-dump and --check-pure need no torch)")
    return torch


def pick_device(torch, want):
    if want:
        if want.startswith("cuda") and not torch.cuda.is_available():
            die(f"CUDA not available to torch {torch.__version__} (torch.version.cuda = {torch.version.cuda}): "
                "this script is a yardstick for GPU machines")
        return torch.device(want)
    if not torch.cuda.is_available():
        die(f"CUDA not available to torch {torch.__version__} (torch.version.cuda = {torch.version.cuda}): "
            "this script is a yardstick for GPU machines; --device cpu runs it on the CPU anyway")
    return torch.device("cuda")


def build_torch_net(torch, cfg, geom):
    """The network as a torch.nn.Module: forward(x[N][P][16]) -> (logits[N][P][6], value[N])."""
    nn, F = torch.nn, torch.nn.functional
    P = geom.ncells
    # Off-board taps read row P, a zero row appended to every sample.
    nb = torch.tensor([j if j >= 0 else P for row in geom.nb for j in row], dtype=torch.long)

    def bn_rows(bn, x):                 # BN over the N*P rows, per channel
        n, p, c = x.shape
        return bn(x.reshape(n * p, c)).reshape(n, p, c)

    class HexConv(nn.Module):
        def __init__(self, ci, co):
            super().__init__()
            self.weight = nn.Parameter(torch.empty(NN_TAPS, ci, co))     # w[7][Ci][Co]
            self.register_buffer("nb", nb.clone(), persistent=False)    # [P*7], tap fastest

        def forward(self, x):           # x[N][P][Ci] -> y[N][P][Co]
            n, p, ci = x.shape
            xp = F.pad(x, (0, 0, 0, 1))                                 # [N][P+1][Ci], row P = 0
            g = torch.index_select(xp, 1, self.nb)                      # [N][P*7][Ci]
            return torch.matmul(g.reshape(n, p, NN_TAPS * ci), self.weight.reshape(NN_TAPS * ci, -1))

    def bn_layer(c):
        return nn.BatchNorm1d(c, eps=cfg.bn_eps, momentum=cfg.bn_momentum)

    class Block(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.conv1, self.bn1 = HexConv(c, c), bn_layer(c)
            self.conv2, self.bn2 = HexConv(c, c), bn_layer(c)

        def forward(self, h):
            u = torch.relu(bn_rows(self.bn1, self.conv1(h)))
            u = bn_rows(self.bn2, self.conv2(u))
            return torch.relu(u + h)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            C, Cp, Cv, Vh = cfg.channels, cfg.policy_channels, cfg.value_channels, cfg.value_hidden
            self.stem, self.stem_bn = HexConv(NN_PLANES, C), bn_layer(C)
            self.blocks = nn.ModuleList([Block(C) for _ in range(cfg.blocks)])
            self.pol_w1 = nn.Parameter(torch.empty(C, Cp))
            self.pol_bn = bn_layer(Cp)
            self.pol_w2 = nn.Parameter(torch.empty(Cp, NN_HEADS))
            self.pol_b = nn.Parameter(torch.zeros(NN_HEADS))
            self.val_w = nn.Parameter(torch.empty(C, Cv))
            self.val_bn = bn_layer(Cv)
            self.fc1_w = nn.Parameter(torch.empty(P * Cv, Vh))
            self.fc1_b = nn.Parameter(torch.zeros(Vh))
            self.fc2_w = nn.Parameter(torch.empty(Vh, 1))
            self.fc2_b = nn.Parameter(torch.zeros(1))

        def forward(self, x):
            n = x.shape[0]
            h = torch.relu(bn_rows(self.stem_bn, self.stem(x)))
            for blk in self.blocks:
                h = blk(h)
            p = torch.relu(bn_rows(self.pol_bn, torch.matmul(h, self.pol_w1)))
            logits = torch.matmul(p, self.pol_w2) + self.pol_b
            v = torch.relu(bn_rows(self.val_bn, torch.matmul(h, self.val_w)))
            v = v.reshape(n, -1)                                         # [N][P*Cv], p*Cv + c
            v = torch.relu(torch.matmul(v, self.fc1_w) + self.fc1_b)
            v = torch.tanh(torch.matmul(v, self.fc2_w) + self.fc2_b)
            return logits, v.reshape(n)

        def views(self):
            """{our view name: the torch tensor (parameter or BN buffer)}, as build_views names them."""
            out = {}

            def bn(prefix, m):
                out.update({prefix + ".gamma": m.weight, prefix + ".beta": m.bias,
                            prefix + ".mean": m.running_mean, prefix + ".var": m.running_var})

            out["stem.conv.w"] = self.stem.weight
            bn("stem.bn", self.stem_bn)
            for b, blk in enumerate(self.blocks):
                out[f"block{b}.conv1.w"] = blk.conv1.weight
                bn(f"block{b}.bn1", blk.bn1)
                out[f"block{b}.conv2.w"] = blk.conv2.weight
                bn(f"block{b}.bn2", blk.bn2)
            out["policy.conv1.w"] = self.pol_w1
            bn("policy.bn", self.pol_bn)
            out["policy.conv2.w"] = self.pol_w2
            out["policy.conv2.b"] = self.pol_b
            out["value.conv.w"] = self.val_w
            bn("value.bn", self.val_bn)
            out["value.fc1.w"] = self.fc1_w
            out["value.fc1.b"] = self.fc1_b
            out["value.fc2.w"] = self.fc2_w
            out["value.fc2.b"] = self.fc2_b
            return out

    net = Net()
    views = net.views()
    expected = expected_views(cfg, P)
    if set(views) != {v[0] for v in expected}:
        raise YardstickError("internal: the torch net's tensors differ from build_views'")
    for name, _stat, shape, _decay in expected:
        if tuple(views[name].shape) != shape:
            raise YardstickError(f"internal: torch tensor {name} has shape {tuple(views[name].shape)}, ours {shape}")
    return net


def init_torch_net(torch, net, cfg, P, seed):
    """Weights as nn_model_create draws them (He-normal; BN 1/0/0/1), from torch's generator."""
    gen = torch.Generator().manual_seed(seed)
    views = net.views()
    with torch.no_grad():
        for name, _stat, shape, decay in expected_views(cfg, P):
            t = views[name]
            if decay:
                fan_in = _count(shape) // shape[-1]
                std = math.sqrt((1.0 if name in ("policy.conv2.w", "value.fc2.w") else 2.0) / fan_in)
                t.copy_(torch.randn(shape, generator=gen) * std)
            else:
                t.fill_(1.0 if name.endswith((".gamma", ".var")) else 0.0)


def load_torch_net(torch, net, ck):
    views = net.views()
    with torch.no_grad():
        for name, (shape, arr) in ck.tensors.items():
            src = torch.frombuffer(arr, dtype=torch.float64 if arr.typecode == "d" else torch.float32)
            views[name].copy_(src.reshape(shape).to(views[name].dtype))


def make_net(torch, args, device):
    """(net on device, cfg, geom, description of the weights)."""
    if args.ckpt:
        ck = Checkpoint(args.ckpt)
        net = build_torch_net(torch, ck.cfg, ck.geom)
        load_torch_net(torch, net, ck)
        return net.to(device), ck.cfg, ck.geom, f"from {args.ckpt} (step {ck.step})"
    cfg = Config.default(args.board)
    if args.channels is not None:
        cfg.channels = args.channels
    if args.blocks is not None:
        cfg.blocks = args.blocks
    cfg.check()
    geom = Geom(cfg.rings)
    net = build_torch_net(torch, cfg, geom)
    init_torch_net(torch, net, cfg, geom.ncells, args.seed)
    return net.to(device), cfg, geom, "random (He-normal, no --ckpt)"


def set_fp32_precision(torch, tf32):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    torch.set_float32_matmul_precision("high" if tf32 else "highest")


def check_torch(args):
    if not args.ckpt:
        die("--check DUMP needs --ckpt CKPT (the checkpoint the dump was made with)", 2)
    d, ck = Dump(args.check), Checkpoint(args.ckpt)
    if d.rings != ck.cfg.rings:
        raise YardstickError(f"{args.check} is for {d.rings} rings, {args.ckpt} for {ck.cfg.rings}")
    torch = import_torch()
    device = pick_device(torch, args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    set_fp32_precision(torch, False)
    net = build_torch_net(torch, ck.cfg, ck.geom)
    load_torch_net(torch, net, ck)
    net = net.to(device).eval()
    x = torch.frombuffer(d.x, dtype=torch.float32).reshape(d.N, d.P, NN_PLANES).to(device)
    ref_l = torch.frombuffer(d.logits, dtype=torch.float32).reshape(d.N, d.P, NN_HEADS).double()
    ref_v = torch.frombuffer(d.values, dtype=torch.float32).double()

    def errs(lg, v):
        el = ((lg.double().cpu() - ref_l).abs().max() / ref_l.abs().max().clamp(min=1e-3)).item()
        ev = ((v.double().cpu() - ref_v).abs().max() / ref_v.abs().max().clamp(min=1e-3)).item()
        return el, ev

    with torch.inference_mode():
        el, ev = errs(*net(x))
        ok = el <= args.tolerance and ev <= args.tolerance
        dev_name = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
        print(f"check: torch {torch.__version__} on {dev_name}, {d.N} positions, {ck.cfg.describe()}")
        print(f"  eager fp32 (TF32 off) vs our C forward: logits max rel err {el:.2e}, values {ev:.2e} "
              f"(tolerance {args.tolerance:g}): {'ok' if ok else 'FAILED'}")
        if device.type == "cuda":
            with torch.autocast("cuda", dtype=torch.bfloat16):
                bl, bv = errs(*net(x))
            print(f"  eager bf16 autocast (information only): logits {bl:.2e}, values {bv:.2e}")
    return 0 if ok else 1


# ---- benchmark -------------------------------------------------------------------------------------

INFER_MODES = ("eager-fp32", "eager-bf16", "compile", "cuda-graph")
TRAIN_MODES = ("train-eager", "train-compile")


def sync(torch, device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_fn(torch, device, fn, args):
    """Median seconds per call over --repeats runs of k calls each (k so a run lasts ~--min-time)."""
    for _ in range(args.warmup):
        fn()
    sync(torch, device)
    t0 = time.perf_counter()
    fn()
    sync(torch, device)
    once = max(time.perf_counter() - t0, 1e-6)
    k = max(1, min(10000, int(args.min_time / once)))
    runs = []
    for _ in range(args.repeats):
        sync(torch, device)
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        sync(torch, device)
        runs.append((time.perf_counter() - t0) / k)
    return statistics.median(runs)


def random_inputs(torch, N, P, device, gen):
    """Inputs shaped like ours: 0/1 planes and a few fractions (timing does not depend on them)."""
    return (torch.rand((N, P, NN_PLANES), generator=gen) < 0.3).float().to(device)


def compile_net(torch, obj, mode):
    """torch.compile(obj) in `mode` ("default" or a torch.compile mode), one static graph per shape."""
    import torch._dynamo  # noqa: F401  (torch._dynamo.config below)
    for attr in ("cache_size_limit", "recompile_limit", "accumulated_cache_size_limit"):
        if hasattr(torch._dynamo.config, attr):
            setattr(torch._dynamo.config, attr, max(64, getattr(torch._dynamo.config, attr)))
    return torch.compile(obj, mode=None if mode == "default" else mode, dynamic=False)


def compiled_with_fallback(torch, state, obj, first_call, args, notes, what):
    """state["fn"] compiled in state["mode"] (--compile-mode at first), checked by first_call(fn);
    on any failure (at compile time or at the first call) fall back once to the default mode."""
    try:
        if state.get("fn") is None:
            state["mode"] = args.compile_mode
            state["fn"] = compile_net(torch, obj, state["mode"])
        first_call(state["fn"])
    except Exception as e:
        if state["mode"] == "default":
            raise
        first = str(e).splitlines()[0] if str(e) else ""
        notes.append(f"{what}: torch.compile(mode={state['mode']!r}) failed ({type(e).__name__}: {first[:160]}); "
                     "using the default mode")
        print(f"  note: {notes[-1]}", flush=True)
        torch._dynamo.reset()
        state["mode"] = "default"
        state["fn"] = compile_net(torch, obj, "default")
        first_call(state["fn"])
    return state["fn"]


def bench_inference(torch, net, geom, flops, device, args, modes, results, notes):
    P = geom.ncells
    gen = torch.Generator().manual_seed(args.seed)
    net.eval()
    compiled = {}
    for mode in modes:
        for N in args.batches:
            x = random_inputs(torch, N, P, device, gen)
            try:
                if mode == "eager-fp32":
                    def fn():
                        with torch.inference_mode():
                            return net(x)
                elif mode == "eager-bf16":
                    def fn():
                        with torch.inference_mode(), torch.autocast(device.type, dtype=torch.bfloat16):
                            return net(x)
                elif mode == "compile":
                    fn = bench_compiled_infer(torch, net, x, args, compiled, notes)
                elif mode == "cuda-graph":
                    if device.type != "cuda":
                        raise RuntimeError("CUDA graphs need a CUDA device")
                    fn = capture_graph(torch, net, x)
                else:
                    raise RuntimeError(f"unknown mode {mode}")
                if args.host_io:
                    fn = with_host_io(torch, fn, x)
                sec = time_fn(torch, device, fn, args)
                label = mode if mode != "compile" else f"compile[{compiled['mode']}]"
                results.append(row(label, "infer", N, sec, flops))
            except Exception as e:          # report and go on with the other modes
                results.append(failed_row(mode, "infer", N, e))
            print_row(results[-1])


def bench_compiled_infer(torch, net, x, args, compiled, notes):
    def first_call(f):
        with torch.inference_mode():
            f(x)
    cf = compiled_with_fallback(torch, compiled, net, first_call, args, notes, "inference")

    def fn():
        with torch.inference_mode():
            return cf(x)
    return fn


def with_host_io(torch, fn, x):
    """fn with the host transfers of a real evaluator around it: x copied in from pinned host memory
    (into x itself, which every mode reads, the CUDA graph included), both outputs copied back."""
    xh = x.cpu().pin_memory()
    host = []

    def io():
        x.copy_(xh, non_blocking=True)
        outs = fn()
        if not host:
            host.extend(torch.empty(o.shape, dtype=o.dtype).pin_memory() for o in outs)
        for h, o in zip(host, outs):
            h.copy_(o, non_blocking=True)
        return outs
    return io


def capture_graph(torch, net, x):
    """Eager forward captured in a CUDA graph on x as its static input (the standard warm-up recipe);
    returns a function that replays it and returns the static outputs."""
    static_x = x
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s), torch.no_grad():
        for _ in range(3):
            net(static_x)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.no_grad(), torch.cuda.graph(g):
        static_out = net(static_x)

    def replay():
        g.replay()
        return static_out
    return replay


def bench_training(torch, net0, geom, flops, device, args, modes, results, notes):
    """One SGD step per call: our optimiser (momentum 0.9, weight decay 1e-4 on the conv and dense
    weights, lr 0.02) on a loss of our form: policy cross-entropy over K two-term move scores per
    sample (l[a] + l[b], as a placement+removal or a jump scores in policy.h) + value MSE."""
    F = torch.nn.functional
    P = geom.ncells
    L = P * NN_HEADS
    K = args.train_moves
    gen = torch.Generator().manual_seed(args.seed + 1)
    for mode in modes:
        for N in args.train_batches:
            try:
                net = copy.deepcopy(net0).train()
                views = net.views()
                decay = [t for name, t in views.items() if name.endswith(".w")]
                other = [t for name, t in views.items() if isinstance(t, torch.nn.Parameter) and not name.endswith(".w")]
                if len(decay) + len(other) != len(list(net.parameters())):
                    raise RuntimeError("internal: parameter groups do not cover the net")
                opt = torch.optim.SGD([{"params": decay, "weight_decay": args.weight_decay},
                                       {"params": other, "weight_decay": 0.0}], lr=args.lr, momentum=0.9)
                x = random_inputs(torch, N, P, device, gen)
                z = (torch.rand(N, generator=gen) * 2 - 1).to(device)
                a = torch.randint(0, L, (N, K), generator=gen)
                b = torch.randint(0, L, (N, K), generator=gen)
                b = torch.where(torch.rand(N, K, generator=gen) < 0.5, torch.full_like(b, L), b)   # index L = 0
                a, b = a.to(device), b.to(device)
                pi = torch.softmax(torch.randn(N, K, generator=gen) * 2, dim=1).to(device)

                def loss_fn(x_):
                    logits, v = net(x_)
                    flat = F.pad(logits.reshape(x_.shape[0], -1), (0, 1))      # column L reads 0
                    s = flat.gather(1, a) + flat.gather(1, b)
                    lp = torch.log_softmax(s, dim=1)
                    return -(pi * lp).sum(dim=1).mean() + ((v - z) ** 2).mean()

                f = loss_fn
                label = mode
                if mode == "train-compile":
                    state = {}
                    f = compiled_with_fallback(torch, state, loss_fn, lambda g: g(x).backward(), args, notes,
                                               f"training at batch {N}")
                    label = f"train-compile[{state['mode']}]"

                def step():
                    opt.zero_grad(set_to_none=True)
                    f(x).backward()
                    opt.step()

                sec = time_fn(torch, device, step, args)
                results.append(row(label, "train", N, sec, 3 * flops))
            except Exception as e:
                results.append(failed_row(mode, "train", N, e))
            print_row(results[-1])


def row(mode, phase, N, sec, flops):
    return {"mode": mode, "phase": phase, "batch": N, "ms_per_batch": sec * 1e3,
            "positions_per_s": N / sec, "gflops": N * flops / sec / 1e9}


def failed_row(mode, phase, N, e):
    msg = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    return {"mode": mode, "phase": phase, "batch": N, "error": msg}


def print_row(r):
    head = f"{r['mode']:<28} {r['phase']:<5} batch {r['batch']:>5}"
    if "error" in r:
        print(f"{head}  FAILED: {r['error'][:200]}", flush=True)
    else:
        print(f"{head}  {r['positions_per_s']:>12,.0f} pos/s  {r['ms_per_batch']:>9.3f} ms/batch"
              f"  {r['gflops']:>8.1f} GFLOP/s", flush=True)


def benchmark(args):
    if args.json:                       # fail now, not after minutes of timing
        try:
            open(args.json, "a").close()
        except OSError as e:
            raise YardstickError(f"{args.json}: cannot write: {e.strerror}") from None
    torch = import_torch()
    device = pick_device(torch, args.device)
    set_fp32_precision(torch, args.tf32)
    torch.manual_seed(args.seed)
    net, cfg, geom, weights = make_net(torch, args, device)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [m for m in modes if m not in INFER_MODES + TRAIN_MODES]
    if bad:
        die(f"unknown mode(s) {', '.join(bad)}; modes: {', '.join(INFER_MODES + TRAIN_MODES)}", 2)
    notes = []
    if device.type != "cuda" and "cuda-graph" in modes:
        modes.remove("cuda-graph")
        notes.append("cuda-graph left out: not a CUDA device")
    if device.type != "cuda" and args.host_io:
        args.host_io = False
        notes.append("--host-io ignored: not a CUDA device")
    command = shlex.join([os.path.basename(sys.executable)] + sys.argv)
    dev_name = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
    print(f"command: {command}")
    print(f"device: {dev_name}; torch {torch.__version__}, CUDA {torch.version.cuda}, "
          f"cuDNN {torch.backends.cudnn.version() if device.type == 'cuda' else '-'}")
    print(f"net: {cfg.describe()}; {model_flops(cfg, geom.ncells) / 1e6:.1f} MFLOP/position forward; weights {weights}")
    io = ("end to end: input copied in from pinned host memory, logits and values copied back (--host-io)"
          if args.host_io else "inputs and outputs stay on the device (no host copies; --host-io adds them)")
    print(f"fp32 modes: TF32 {'allowed (--tf32)' if args.tf32 else 'off'}; inference {io}")
    print(f"timing: median of {args.repeats} runs of >= {args.min_time:g} s each, after {args.warmup} warm-up calls, "
          f"synchronised around each run")
    if any(m in TRAIN_MODES for m in modes):
        print(f"training: one SGD step per call (lr {args.lr:g}, momentum 0.9, weight decay {args.weight_decay:g} "
              f"on conv/dense weights); loss = policy cross-entropy over {args.train_moves} random two-term "
              f"move scores per sample with a random target distribution (an approximation of our factorised "
              f"loss over real legal moves) + value MSE; GFLOP/s counts 3x the forward")
    for note in notes:
        print(f"note: {note}")
    results = []
    flops = model_flops(cfg, geom.ncells)
    imodes = [m for m in modes if m in INFER_MODES]
    tmodes = [m for m in modes if m in TRAIN_MODES]
    bench_inference(torch, net, geom, flops, device, args, imodes, results, notes)
    bench_training(torch, net, geom, flops, device, args, tmodes, results, notes)
    if args.json:
        out = {"command": command, "device": dev_name, "torch": torch.__version__, "cuda": torch.version.cuda,
               "config": {f: getattr(cfg, f) for f in Config.FIELDS}, "weights": weights,
               "mflop_per_position": model_flops(cfg, geom.ncells) / 1e6, "tf32": args.tf32,
               "host_io": args.host_io,
               "warmup": args.warmup, "repeats": args.repeats, "min_time_s": args.min_time,
               "train_loss": f"policy CE over {args.train_moves} random two-term moves + value MSE (approximation)",
               "notes": notes, "results": results}
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
        print(f"json: {args.json}")
    failed = [r for r in results if "error" in r]
    if failed:
        print(f"{len(failed)} of {len(results)} (mode, batch) runs FAILED (see above)")
    return 1 if results and len(failed) == len(results) else 0


# ---- command line ----------------------------------------------------------------------------------

def int_list(s):
    try:
        v = [int(e) for e in s.split(",") if e.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of integers: {s!r}") from None
    if not v or any(e < 1 for e in v):
        raise argparse.ArgumentTypeError(f"batch sizes must be >= 1: {s!r}")
    return v


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="torch_yardstick.py",
        description="A PyTorch yardstick for our GPU benchmarks: our exact network (src/nn/model.h) in "
                    "PyTorch, loaded from our checkpoint format, timed on a GPU. Never a dependency of the project.",
        epilog="Without torch only --selftest-loader, --selftest-dump and --check-pure work. "
               "Dumps come from tools/nn_dump (e.g. tools/nn_dump --board 37 --perturb --save-ckpt C --n 64 --out D).")
    g = ap.add_argument_group("checks (no torch needed except --check)")
    g.add_argument("--selftest-loader", metavar="CKPT", help="load and verify a checkpoint, print a summary")
    g.add_argument("--selftest-dump", metavar="DUMP", help="parse a tools/nn_dump dump, print its shape")
    g.add_argument("--check-pure", nargs=2, metavar=("DUMP", "CKPT"),
                   help="pure-Python float64 forward of --pure-samples positions against the dump")
    g.add_argument("--pure-samples", type=int, default=1, metavar="K", help="positions for --check-pure (default 1)")
    g.add_argument("--check", metavar="DUMP", help="torch forward (eval, fp32) against the dump (needs --ckpt)")
    g.add_argument("--tolerance", type=float, default=1e-4,
                   help="max relative error (max |diff| / max |reference|) for the checks (default 1e-4)")
    b = ap.add_argument_group("benchmark (the default)")
    b.add_argument("--ckpt", metavar="PATH", help="our checkpoint (else a random net of the default config)")
    b.add_argument("--board", type=int, choices=(37, 48, 61), default=37, help="without --ckpt: the board (37)")
    b.add_argument("--channels", type=int, help="without --ckpt: trunk width (default 64)")
    b.add_argument("--blocks", type=int, help="without --ckpt: residual blocks (default 6; 8 on 61 rings)")
    b.add_argument("--batches", type=int_list, default=[1, 64, 256, 1024, 4096],
                   help="inference batch sizes (default 1,64,256,1024,4096)")
    b.add_argument("--train-batches", type=int_list, default=[256, 1024], help="training batch sizes (default 256,1024)")
    b.add_argument("--modes", default=",".join(INFER_MODES + TRAIN_MODES),
                   help="comma list of " + ", ".join(INFER_MODES + TRAIN_MODES) + " (default all)")
    b.add_argument("--compile-mode", default="max-autotune",
                   help="torch.compile mode (default max-autotune, falling back to default on failure)")
    b.add_argument("--tf32", action="store_true", help="allow TF32 in the fp32 modes (default: off, full fp32)")
    b.add_argument("--host-io", action="store_true",
                   help="inference end to end: copy the input from pinned host memory and the outputs back "
                        "each call (as tools/bench_nn --gpu measures); default: device-resident")
    b.add_argument("--device", help="torch device (default cuda; cpu runs without a GPU, no cuda-graph)")
    b.add_argument("--warmup", type=int, default=5, help="warm-up calls per (mode, batch) (default 5)")
    b.add_argument("--repeats", type=int, default=7, help="timed runs per (mode, batch); the median is reported (7)")
    b.add_argument("--min-time", type=float, default=0.2, help="seconds per timed run (default 0.2)")
    b.add_argument("--train-moves", type=int, default=400, help="move scores per sample in the training loss (400)")
    b.add_argument("--lr", type=float, default=0.02, help="SGD learning rate (0.02)")
    b.add_argument("--weight-decay", type=float, default=1e-4, help="weight decay on conv/dense weights (1e-4)")
    b.add_argument("--seed", type=int, default=1, help="seed of the random weights and inputs (1)")
    b.add_argument("--json", metavar="OUT", help="also write the figures as JSON")
    args = ap.parse_args(argv)
    if args.ckpt and (args.channels is not None or args.blocks is not None):
        ap.error("--channels/--blocks describe a random net: not with --ckpt")
    if args.warmup < 0 or args.repeats < 1 or args.min_time <= 0 or args.train_moves < 1 or args.pure_samples < 1:
        ap.error("--warmup >= 0, --repeats >= 1, --min-time > 0, --train-moves >= 1, --pure-samples >= 1")
    try:
        if args.selftest_loader:
            selftest_loader(args.selftest_loader)
            return 0
        if args.selftest_dump:
            selftest_dump(args.selftest_dump)
            return 0
        if args.check_pure:
            return check_pure(args.check_pure[0], args.check_pure[1], args.pure_samples, args.tolerance)
        if args.check:
            return check_torch(args)
        return benchmark(args)
    except YardstickError as e:
        die(str(e))


if __name__ == "__main__":
    sys.exit(main())
