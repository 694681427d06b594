"""Packed sequences as torch.nn.utils.rnn's: a batch of sequences of different lengths as the
steps' rows one after another (data), the number of sequences still running at each step
(batch_sizes), and the permutation that sorted them by length. The recurrent layers take them
(each sequence runs its own number of steps). Packing and padding are index selections, so
gradients flow through them."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ... import _C
from ..._tensor import tensor


class PackedSequence(NamedTuple):
    data: _C.Tensor
    batch_sizes: _C.Tensor
    sorted_indices: _C.Tensor | None = None
    unsorted_indices: _C.Tensor | None = None

    def to(self, *args, **kwargs) -> PackedSequence:
        """data moved or converted; the index tensors stay on the CPU, as batch_sizes."""
        return self._replace(data=self.data.to(*args, **kwargs))

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    def double(self) -> PackedSequence:
        return self.to(_C.dtype.float64)

    def float(self) -> PackedSequence:
        return self.to(_C.dtype.float32)

    @property
    def is_cuda(self) -> bool:
        return self.data.device.type == "cuda"


def invert_permutation(permutation):
    if permutation is None:
        return None
    inverse = np.empty(permutation.numel(), dtype=np.int64)
    inverse[permutation.numpy()] = np.arange(permutation.numel())
    return tensor(inverse)


def _lengths_of(lengths) -> np.ndarray:
    if isinstance(lengths, _C.Tensor):
        if lengths.device.type != "cpu":
            raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got 1D "
                               f"{lengths.device.type} {lengths.dtype.name} tensor")
        return lengths.numpy().astype(np.int64).reshape(-1)
    return np.asarray(list(lengths), dtype=np.int64)


def packed_rows(batch_sizes: np.ndarray, batch: int) -> np.ndarray:
    """The flat (step * batch + sequence) positions of the packed rows, step by step (the
    recurrent layers read their packed output with it too)."""
    return np.concatenate([t * batch + np.arange(n) for t, n in enumerate(batch_sizes)]) if len(batch_sizes) else \
        np.zeros(0, dtype=np.int64)


def pack_padded_sequence(input, lengths, batch_first: bool = False, enforce_sorted: bool = True) -> PackedSequence:
    """(T, B, *) (or (B, T, *)) padded sequences of the given lengths, packed."""
    lengths_np = _lengths_of(lengths)
    if enforce_sorted:
        if np.any(np.diff(lengths_np) > 0):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                               "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
        sorted_indices = None
    else:
        order = np.argsort(-lengths_np, kind="stable")
        sorted_indices = tensor(order)
        lengths_np = lengths_np[order]
        input = input.index_select(0 if batch_first else 1, sorted_indices.to(input.device))
    if len(lengths_np) and lengths_np.min() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that is "
                           "<= 0")
    if batch_first:
        input = input.transpose(0, 1)
    steps, batch = input.shape[0], input.shape[1]
    if len(lengths_np) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths_np)} (batch_size="
                           f"{batch})")
    longest = int(lengths_np.max()) if len(lengths_np) else 0
    if longest > steps:
        raise RuntimeError(f"Expected sequence length to be at most {steps}, but got a length of {longest}")
    batch_sizes = (lengths_np[None, :] > np.arange(longest)[:, None]).sum(1).astype(np.int64)
    rows = tensor(packed_rows(batch_sizes, batch)).to(input.device)
    data = input.reshape([steps * batch] + list(input.shape[2:])).index_select(0, rows)
    return PackedSequence(data, tensor(batch_sizes), sorted_indices, invert_permutation(sorted_indices))


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None):
    """(padded (T, B, *) or (B, T, *), lengths): the inverse of pack_padded_sequence, in the
    sequences' original order."""
    batch_sizes = sequence.batch_sizes.numpy().astype(np.int64)
    longest, batch = len(batch_sizes), int(batch_sizes[0]) if len(batch_sizes) else 0
    if total_length is not None:
        if total_length < longest:
            raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {longest}")
        steps = total_length
    else:
        steps = longest
    data = sequence.data
    # row r of `extended` for each (step, sequence): the packed row, or the padding row after them
    extended = _C.cat([data, _C.full([1] + list(data.shape[1:]), padding_value, dtype=data.dtype,
                                     device=data.device)], 0)
    where = np.full(steps * batch, data.shape[0], dtype=np.int64)
    where[packed_rows(batch_sizes, batch)] = np.arange(data.shape[0])
    padded = extended.index_select(0, tensor(where).to(data.device)).reshape([steps, batch] + list(data.shape[1:]))
    lengths = (batch_sizes[None, :] > np.arange(batch)[:, None]).sum(1).astype(np.int64) if batch else \
        np.zeros(0, dtype=np.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices.to(data.device))
        lengths = lengths[sequence.unsorted_indices.numpy()]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, tensor(lengths)


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0, padding_side: str = "right"):
    """Tensors of shape (L_i, *) stacked into (max L, B, *) (or (B, max L, *)), padded."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    sequences = list(sequences)
    longest = max(s.shape[0] for s in sequences)
    rows = []
    for s in sequences:
        pad = _C.full([longest - s.shape[0]] + list(s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
        rows.append(_C.cat([s, pad] if padding_side == "right" else [pad, s], 0))
    return _C.stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first: bool = False) -> list:
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[i, :int(n)] for i, n in enumerate(_lengths_of(lengths))]


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
