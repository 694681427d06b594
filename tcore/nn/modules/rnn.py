"""RNN, LSTM, GRU and their cells, as torch's: the same parameters (names, shapes, order,
initialization), gate orders (LSTM i, f, g, o; GRU r, z, n), projections (LSTM's proj_size),
directions, dropout between layers, batch_first and unbatched inputs. Made of tcore's operators,
so their gradients and tangents are those of what they call. Each layer projects the whole
sequence's inputs in one matrix product, then steps through time in C++ (_recurrent_layer,
csrc/native/composite/Recurrent.cpp, which the cells share).
PackedSequence inputs (tcore.nn.utils.rnn) run each sequence its own number of steps: the
padded batch with a (step, sequence) mask under which a finished sequence's state holds."""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from ... import _C
from ..._tensor import tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence, pad_packed_sequence, packed_rows
from .module import Module

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _stack(tensors, dim: int = 0):
    return _C.stack(list(tensors), dim)


class RNNBase(Module):
    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__()
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          stacklevel=2)
        if not isinstance(hidden_size, int) or isinstance(hidden_size, bool):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        gate_size = _GATES[mode] * hidden_size
        factory = {"device": device, "dtype": dtype}
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden * directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", [gate_size, layer_input]), ("weight_hh", [gate_size, real_hidden])]
                if bias:
                    shapes += [("bias_ih", [gate_size]), ("bias_hh", [gate_size])]
                if proj_size > 0:
                    shapes.append(("weight_hr", [proj_size, hidden_size]))
                names = []
                for stem, shape in shapes:
                    name = f"{stem}_l{layer}{suffix}"
                    setattr(self, name, Parameter(_C.empty(shape, **factory)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """Nothing to do: the weights are used where they lie (torch's is for cuDNN)."""

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def _weights(self, layer: int, direction: int) -> tuple:
        suffix = "_reverse" if direction == 1 else ""
        get = lambda stem: getattr(self, f"{stem}_l{layer}{suffix}", None)  # noqa: E731
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh"), get("weight_hr")

    def _check_input(self, input) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        if self.input_size != input.shape[-1]:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.shape[-1]}")

    def _check_hidden(self, hx, expected: tuple, what: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(what.format(expected, list(hx.shape)))

    def _run(self, input, h0, c0, valid=None):
        """input (L, N, H_in); h0 (layers * D, N, H_out), c0 likewise (LSTM) or None; valid the
        (L, N) mask of a packed batch's steps."""
        directions = 2 if self.bidirectional else 1
        x = input
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, direction)
                k = layer * directions + direction
                gi = F.linear(x, w_ih, b_ih)  # every step's input projection at once
                out, h, c = _C._recurrent_layer(gi, h0[k], c0[k] if c0 is not None else None, w_hh, b_hh, w_hr,
                                                self.mode, direction == 1, valid)
                h_n.append(h)
                if c0 is not None:
                    c_n.append(c)
                outputs.append(out)
            x = outputs[0] if directions == 1 else _C.cat(outputs, 2)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, _stack(h_n), (_stack(c_n) if c0 is not None else None)

    def _initial_states(self, hx, batch: int, batched: bool, dtype, device, lstm: bool):
        """(h0, c0) of shape (layers * D, batch, H): zeros, or hx's (checked as torch checks them)."""
        directions = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        h_shape = (self.num_layers * directions, batch, real_hidden)
        c_shape = (self.num_layers * directions, batch, self.hidden_size)
        if hx is None:
            zeros = lambda shape: _C.zeros(list(shape), dtype=dtype, device=device)  # noqa: E731
            return zeros(h_shape), (zeros(c_shape) if lstm else None)
        h0, c0 = (hx if lstm else (hx, None))
        states = (h0, c0) if lstm else (h0,)
        want = 3 if batched else 2
        if any(state.dim() != want for state in states):
            kind = "batched 3-D" if batched else "unbatched 2-D"
            got = (f"({h0.dim()}-D, {c0.dim()}-D) tensors" if lstm else f"{h0.dim()}-D tensor")
            raise RuntimeError(f"For {kind} input, hx{' and cx' if lstm else ''} should also be {want}-D but got "
                               f"{got}")
        if not batched:
            h0, c0 = h0.unsqueeze(1), (c0.unsqueeze(1) if lstm else None)
        self._check_hidden(h0, h_shape)
        if lstm:
            self._check_hidden(c0, c_shape, "Expected hidden[1] size {}, got {}")
        return h0, c0

    def _forward_packed(self, packed, hx, lstm: bool):
        """A PackedSequence in, one out (same batch_sizes and permutation); h_n (c_n) in the
        caller's sequence order, hx taken in it."""
        data = packed.data
        if data.dim() != 2:
            raise ValueError(f"{type(self).__name__}: Expected packed data to be 2D, got {data.dim()}D instead")
        self._check_input(data)
        padded, lengths = pad_packed_sequence(PackedSequence(data, packed.batch_sizes))  # (sorted order)
        steps, batch = padded.shape[0], padded.shape[1]
        sorted_idx, unsorted_idx = packed.sorted_indices, packed.unsorted_indices
        if hx is not None and sorted_idx is not None:  # (the caller's order into the sorted one)
            order = sorted_idx.to(data.device)
            hx = (hx[0].index_select(1, order), hx[1].index_select(1, order)) if lstm else hx.index_select(1, order)
        h0, c0 = self._initial_states(hx, batch, True, data.dtype, data.device, lstm)
        valid = tensor(lengths.numpy()[None, :] > np.arange(steps)[:, None]).to(data.device)
        output, h_n, c_n = self._run(padded, h0, c0, valid)
        rows = tensor(packed_rows(packed.batch_sizes.numpy(), batch)).to(data.device)
        out = output.reshape([steps * batch, output.shape[-1]]).index_select(0, rows)
        if unsorted_idx is not None:
            back = unsorted_idx.to(data.device)
            h_n, c_n = h_n.index_select(1, back), (c_n.index_select(1, back) if lstm else None)
        return PackedSequence(out, packed.batch_sizes, sorted_idx, unsorted_idx), ((h_n, c_n) if lstm else h_n)

    def _forward(self, input, hx, lstm: bool):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx, lstm)
        self._check_input(input)
        weight = self._flat_weights[0]
        if input.dtype != weight.dtype and not _C._autocast_active():  # (autocast casts, as torch's)
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight.dtype}). Convert "
                             f"input: input.to({weight.dtype}), or convert model: model.to({input.dtype})")
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        h0, c0 = self._initial_states(hx, input.shape[1], batched, input.dtype, input.device, lstm)
        if input.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        output, h_n, c_n = self._run(input, h0, c0)
        if not batched:
            output, h_n, c_n = output.squeeze(1), h_n.squeeze(1), (c_n.squeeze(1) if lstm else None)
        elif self.batch_first:
            output = output.transpose(0, 1)
        return output, ((h_n, c_n) if lstm else h_n)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(RNNBase):
    """h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu: nonlinearity='relu')."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device=None, dtype=None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, num_layers,
                         bias, batch_first, dropout, bidirectional, proj_size, device, dtype)

    def forward(self, input, hx=None):
        return self._forward(input, hx, lstm=False)


class LSTM(RNNBase):
    """Gates i, f, g, o; c_t = f * c_{t-1} + i * g, h_t = o * tanh(c_t) (times W_hr^T with proj_size).
    forward(input, (h_0, c_0)) -> output, (h_n, c_n)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device, dtype)

    def forward(self, input, hx=None):
        return self._forward(input, hx, lstm=True)


class GRU(RNNBase):
    """Gates r, z, n; n = tanh(W_in x + b_in + r * (W_hn h + b_hn)), h_t = (1 - z) * n + z * h_{t-1}."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device, dtype)

    def forward(self, input, hx=None):
        return self._forward(input, hx, lstm=False)


class RNNCellBase(Module):
    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        factory = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(_C.empty([num_chunks * hidden_size, input_size], **factory))
        self.weight_hh = Parameter(_C.empty([num_chunks * hidden_size, hidden_size], **factory))
        if bias:
            self.bias_ih = Parameter(_C.empty([num_chunks * hidden_size], **factory))
            self.bias_hh = Parameter(_C.empty([num_chunks * hidden_size], **factory))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _step(self, mode: str, input, hx, lstm: bool):
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected {self.input_size}")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zero = _C.zeros([input.shape[0], self.hidden_size], dtype=input.dtype, device=input.device)
            h, c = zero, (zero if lstm else None)
        else:
            h, c = hx if lstm else (hx, None)
            states = (h, c) if lstm else (h,)
            if not lstm and h.dim() not in (1, 2):
                raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {h.dim()}D instead")
            if not batched:
                states = tuple(state.unsqueeze(0) for state in states)
            for i, state in enumerate(states):  # (torch's kernel checks, by the same names)
                if state.dim() != 2 or state.shape[0] != input.shape[0]:
                    raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{i} batch size "
                                       f"{state.shape[0]}")
                if state.shape[1] != self.hidden_size:
                    raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {state.shape[1]}, expected "
                                       f"{self.hidden_size}")
            h, c = states if lstm else (states[0], None)
        gi = F.linear(input, self.weight_ih, self.bias_ih).unsqueeze(0)  # (one step)
        _, h, c = _C._recurrent_layer(gi, h, c, self.weight_hh, self.bias_hh, None, mode, False)
        c = c if lstm else None
        if not batched:
            h, c = h.squeeze(0), (c.squeeze(0) if lstm else None)
        return (h, c) if lstm else h


class RNNCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        return self._step("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", input, hx, lstm=False)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        return self._step("LSTM", input, hx, lstm=True)


class GRUCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        return self._step("GRU", input, hx, lstm=False)
