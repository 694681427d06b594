"""torch.func's transforms over tcore's autograd (tcore.func re-exports them):

* grad, grad_and_value, vjp: reverse mode on fresh aliases of the differentiated inputs (an
  input that already carries an outer transform's gradient is aliased by a differentiable view,
  so transforms nest: grad(grad(f)), jacrev(grad(f)));
* jvp, jacfwd: forward mode (dual tensors), one tangent per input element for jacfwd;
* jacrev: one backward pass per output element; hessian = jacfwd(jacrev(f));
* vmap: f applied to each slice along in_dims and the results stacked along out_dims (a loop,
  not batching rules: torch's semantics, one call of f per sample); randomness "error" raises
  when f draws random numbers, "same" gives each sample the same draws, "different" its own;
* functional_call, stack_module_state: a module run with other tensors in place of its
  parameters and buffers.

Arguments and results are pytrees (tuples, lists, dicts of tensors), as torch's. Results are
detached at the outermost transform (torch's carry no graph) unless an input requires grad: then
they stay differentiable with respect to it. Reverse over forward (grad of jvp) works: the
generated kernels record the tangents' computation in grad mode."""
from __future__ import annotations

import functools
from contextlib import contextmanager

from . import _C
from ._utilities import get_rng_state, set_rng_state
from .autograd import enable_grad
from .autograd import forward_ad as fwAD
from .autograd import grad as _autograd_grad

Tensor = _C.Tensor

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap", "functional_call",
           "stack_module_state"]

_depth = 0  # transforms active (grad, vjp, jacrev, jvp, jacfwd): results are detached at 0
_duals = 0  # jvp levels active (their inputs may carry tangents)


# ------------------------------------------------------------------ pytrees
def _flatten(tree) -> tuple[list, object]:
    """(the tensors and other leaves of tree in order, its structure)"""
    if isinstance(tree, (list, tuple)):
        leaves, specs = [], []
        for x in tree:
            sub, spec = _flatten(x)
            leaves += sub
            specs.append((len(sub), spec))
        return leaves, (type(tree), specs)
    if isinstance(tree, dict):
        leaves, specs = [], []
        for k, x in tree.items():
            sub, spec = _flatten(x)
            leaves += sub
            specs.append((k, len(sub), spec))
        return leaves, (dict, specs)
    return [tree], None


def _unflatten(leaves: list, spec):
    if spec is None:
        return leaves[0]
    kind, specs = spec
    out, at = [], 0
    if kind is dict:
        d = {}
        for k, n, sub in specs:
            d[k] = _unflatten(leaves[at:at + n], sub)
            at += n
        return d
    for n, sub in specs:
        out.append(_unflatten(leaves[at:at + n], sub))
        at += n
    return kind(out) if kind in (list, tuple) else kind(*out)


def _tree_map(fn, tree):
    leaves, spec = _flatten(tree)
    return _unflatten([fn(x) for x in leaves], spec)


@contextmanager
def _level():
    global _depth
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1


def _finish(tree, inputs):
    """tree as a transform returns it: detached at the outermost transform, unless one of the
    transform's `inputs` (a pytree) is part of the caller's own graph (requires grad): then, as
    torch's, the results stay differentiable with respect to it."""
    if _depth or any(isinstance(x, Tensor) and x.requires_grad for x in _flatten(inputs)[0]):
        return tree
    return _tree_map(lambda t: t.detach() if isinstance(t, Tensor) else t, tree)


def _tracked(x):
    """x as a differentiated input of this transform: a fresh leaf, or (x already part of an outer
    transform's graph) a differentiable alias, whose gradient is this level's alone."""
    if not isinstance(x, Tensor):
        return x
    if not (x.is_floating_point()):
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if x.requires_grad:
        return x.view_as(x)
    tangent = fwAD.unpack_dual(x).tangent if _duals else None
    leaf = x.detach().requires_grad_(True)
    # (a dual input of an enclosing jvp keeps its tangent: forward over reverse, hessian's)
    return leaf if tangent is None else fwAD.make_dual(leaf, tangent)


def _argnums(argnums, n: int, name: str) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums or not all(isinstance(i, int) for i in nums):
        raise RuntimeError(f"{name}: argnums must be int or Tuple[int, ...], got: {argnums}")
    for i in nums:
        if not -n <= i < n:
            raise RuntimeError(f"Got argnum={i}, but only {n} positional inputs")
    return tuple(i % n for i in nums)


def _gradients(outputs: list, inputs: list, cotangents: list | None = None) -> list:
    """d(outputs . cotangents)/d(inputs), zeros for an input the outputs do not depend on."""
    live = [(o, c) for o, c in zip(outputs, cotangents or [None] * len(outputs)) if o.requires_grad]
    if not live:
        return [_C.zeros_like(x) for x in inputs]
    grads = _autograd_grad([o for o, _ in live], inputs, [c for _, c in live] if cotangents else None,
                           retain_graph=True, create_graph=True, allow_unused=True)
    return [_C.zeros_like(x) if g is None else g for x, g in zip(inputs, grads)]


def _split_aux(out, has_aux: bool, caller: str):
    """(output, aux) of func's result: has_aux asks for a pair."""
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{caller}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return out


def _call_tracked(func, args: tuple, kwargs: dict, nums: tuple, has_aux: bool, caller: str):
    """(the differentiated arguments, func's output, aux): func called on args with those at nums
    tracked (inside enable_grad and a transform level)."""
    args = list(args)
    differentiated = [_tree_map(_tracked, args[i]) for i in nums]
    for i, d in zip(nums, differentiated):
        args[i] = d
    out, aux = _split_aux(func(*args, **kwargs), has_aux, caller)
    return differentiated, out, aux


def _gradient_tree(differentiated: list, grads: list):
    """grads (one per tensor leaf of differentiated) in differentiated's structure."""
    leaves, spec = _flatten(differentiated)
    it = iter(grads)
    return _unflatten([next(it) if isinstance(x, Tensor) else None for x in leaves], spec)


def _tensor_leaves(tree) -> list:
    return [x for x in _flatten(tree)[0] if isinstance(x, Tensor)]


# ------------------------------------------------------------------ reverse mode
def grad_and_value(func, argnums=0, has_aux: bool = False):
    """(the gradient of func's scalar output with respect to args[argnums], the output), or
    ((gradient), (output, aux)) with has_aux."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _argnums(argnums, len(args), "grad_and_value")
        with enable_grad(), _level():
            differentiated, out, aux = _call_tracked(func, args, kwargs, nums, has_aux, "grad_and_value(f)(*args)")
            if not isinstance(out, Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(out)}")
            if out.numel() != 1:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {out.ndim} dims. Maybe you wanted to use the vjp or jacrev APIs "
                                   f"instead?")
            grads_tree = _gradient_tree(differentiated, _gradients([out], _tensor_leaves(differentiated)))
        result = grads_tree[0] if isinstance(argnums, int) else tuple(grads_tree)
        return _finish((result, (out, aux) if has_aux else out), (args, kwargs))

    return wrapper


def grad(func, argnums=0, has_aux: bool = False):
    """The gradient of func's scalar output with respect to args[argnums] (a tuple for several),
    as a function of func's arguments; (gradient, aux) with has_aux."""
    both = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = both(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func, *primals, has_aux: bool = False):
    """(func(*primals), vjp_fn) (and aux): vjp_fn(cotangents) gives the vector-Jacobian products,
    one per primal, as a tuple."""
    with enable_grad(), _level():
        tracked, out, aux = _call_tracked(func, primals, {}, tuple(range(len(primals))), has_aux,
                                          "vjp(f, *primals)")
    out_leaves, _ = _flatten(out)

    def vjp_fn(cotangents, retain_graph: bool = True, create_graph: bool | None = None):
        """(the graph is always kept: vjp_fn may be called again, as torch's)"""
        c_leaves, _ = _flatten(cotangents)
        if len(c_leaves) != len(out_leaves):
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                               "outputs to the function")
        for i, (o, c) in enumerate(zip(out_leaves, c_leaves)):
            if tuple(o.shape) != tuple(c.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {tuple(c.shape)} and "
                                   f"output[{i}] has a shape of {tuple(o.shape)}.")
        with enable_grad(), _level():
            result = _gradient_tree(tracked, _gradients(list(out_leaves), _tensor_leaves(tracked), list(c_leaves)))
        return _finish(tuple(result), (primals, cotangents))

    value = _finish(out, primals)
    return (value, vjp_fn, _finish(aux, primals)) if has_aux else (value, vjp_fn)


def jacrev(func, argnums=0, *, has_aux: bool = False, chunk_size=None, _preallocate_and_copy: bool = False):
    """The Jacobian of func with respect to args[argnums] by reverse mode: for each output
    tensor, output.shape + input.shape (a tuple over argnums when argnums is a tuple; the
    output's pytree structure kept); one backward pass per output element."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _argnums(argnums, len(args), "jacrev")
        with enable_grad(), _level():
            differentiated, out, aux = _call_tracked(func, args, kwargs, nums, has_aux, "jacrev(f, ...)(*args)")
            tensors = _tensor_leaves(differentiated)
            out_leaves, out_spec = _flatten(out)
            jacobians = []
            for o in out_leaves:
                flat = o.reshape(-1)
                rows = [_gradients([flat[k]], tensors) for k in range(flat.numel())]
                per_input = []
                for j, x in enumerate(tensors):
                    stacked = _C.stack([r[j] for r in rows]) if rows else x.new_zeros([0, *x.shape])
                    per_input.append(stacked.reshape([*o.shape, *x.shape]))
                tree = _gradient_tree(differentiated, per_input)
                jacobians.append(tree[0] if isinstance(argnums, int) else tuple(tree))
            result = _unflatten(jacobians, out_spec)
        return _finish((result, aux) if has_aux else result, (args, kwargs))

    return wrapper


# ------------------------------------------------------------------ forward mode
def jvp(func, primals, tangents, *, strict: bool = False, has_aux: bool = False):
    """(func(*primals), the Jacobian-vector product with tangents) by forward mode (and aux)."""
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to be tuples. E.g. it should "
                           "be valid to call f(*primals).")
    p_leaves, p_spec = _flatten(primals)
    t_leaves, _ = _flatten(tangents)
    if len(p_leaves) != len(t_leaves):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           "structure.")
    for p, t in zip(p_leaves, t_leaves):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(f"jvp(f, primals, tangents): Expected primals and tangents to have the same shape, "
                               f"got {tuple(p.shape)} and {tuple(t.shape)}")
    global _duals
    with _level(), fwAD.dual_level():
        _duals += 1
        try:
            result, aux = _dual_call(func, p_leaves, t_leaves, p_spec, has_aux)
        finally:
            _duals -= 1
    result = _finish(result, (primals, tangents))
    return (*result, _finish(aux, (primals, tangents))) if has_aux else result


def _dual_call(func, p_leaves: list, t_leaves: list, p_spec, has_aux: bool):
    """((func's output, its tangent), aux) of func on the dual primals (inside a dual level)."""
    duals = _unflatten([fwAD.make_dual(p, t) for p, t in zip(p_leaves, t_leaves)], p_spec)
    out, aux = _split_aux(func(*duals), has_aux, "jvp(f, primals, tangents)")
    o_leaves, o_spec = _flatten(out)
    values, products = [], []
    for o in o_leaves:
        value, tangent = fwAD.unpack_dual(o)
        values.append(value)
        products.append(_C.zeros_like(value) if tangent is None else tangent)
    return (_unflatten(values, o_spec), _unflatten(products, o_spec)), aux


def jacfwd(func, argnums=0, has_aux: bool = False, *, randomness: str = "error"):
    """The Jacobian of func with respect to args[argnums] by forward mode: one jvp per input
    element, for each output tensor output.shape + input.shape (a tuple over argnums when
    argnums is a tuple). randomness as vmap's over the basis vectors."""
    rng = _Randomness(randomness)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _argnums(argnums, len(args), "jacfwd")
        rng.start()
        in_trees = [args[i] for i in nums]
        in_leaves, in_spec = _flatten(in_trees)
        columns = []  # per input leaf: the output leaves' tangents for each basis vector
        out_spec, aux = None, None
        for j, x in enumerate(in_leaves):
            per_basis = []
            for k in range(x.numel()):
                basis = [_C.zeros(list(y.shape), dtype=y.dtype, device=y.device) for y in in_leaves]
                basis[j].view(-1)[k] = 1  # (contiguous: any layout of the input)
                tangent_trees = _unflatten(basis, in_spec)

                def partial(*chosen, _args=args):
                    full = list(_args)
                    for i, c in zip(nums, chosen):
                        full[i] = c
                    return func(*full, **kwargs)

                res = rng.call(jvp, partial, tuple(in_trees), tuple(tangent_trees), has_aux=has_aux)
                out, product = res[0], res[1]
                if has_aux:
                    aux = res[2]
                o_leaves, out_spec = _flatten(product)
                per_basis.append(o_leaves)
            columns.append(per_basis)
        if out_spec is None:  # (no input element at all: func once for the output's shapes)
            out = func(*args, **kwargs)
            if has_aux:
                out, aux = out
            _, out_spec = _flatten(out)
            out_shapes = [tuple(o.shape) for o in _flatten(out)[0]]
        else:
            out_shapes = [tuple(o.shape) for o in columns[next(i for i, c in enumerate(columns) if c)][0]]
        jacobians = []
        for m, shape in enumerate(out_shapes):
            per_input = []
            for j, x in enumerate(in_leaves):
                if columns[j]:
                    stacked = _C.stack([b[m] for b in columns[j]], dim=-1)
                else:
                    stacked = _C.zeros([*shape, 0], dtype=x.dtype, device=x.device)
                per_input.append(stacked.reshape([*shape, *x.shape]))
            tree = _unflatten(per_input, in_spec)
            jacobians.append(tree[0] if isinstance(argnums, int) else tuple(tree))
        result = _unflatten(jacobians, out_spec)
        return (result, aux) if has_aux else result

    return wrapper


def hessian(func, argnums=0):
    """The Hessian of a scalar func: jacfwd(jacrev(func))."""
    return jacfwd(jacrev(func, argnums), argnums)


# ------------------------------------------------------------------ vmap
def _dims_for(dims, tree, what: str) -> list:
    """dims (an int or None for a whole subtree, else a tuple, list or dict shaped like tree's
    top levels: torch's prefix rule) expanded to one per leaf of tree."""
    if isinstance(dims, int) or dims is None:
        return [dims] * len(_flatten(tree)[0])
    if isinstance(dims, (tuple, list)) and isinstance(tree, (tuple, list)) and len(dims) == len(tree):
        return [d for sub, t in zip(dims, tree) for d in _dims_for(sub, t, what)]
    if isinstance(dims, dict) and isinstance(tree, dict) and sorted(dims) == sorted(tree):
        return [d for k in tree for d in _dims_for(dims[k], tree[k], what)]
    raise ValueError(f"vmap(<function>, {what}={dims}, ...): {what} is not compatible with the structure of the "
                     f"{'inputs' if what == 'in_dims' else 'outputs'}")


def _stacked(results: list, out_dims, empty: bool = False) -> object:
    """The samples' outputs stacked along out_dims (a leaf with out_dim None: the same for every
    sample, returned once, as torch's unbatched outputs); `empty`: results holds one stand-in
    sample and the stacks are of none."""
    out_spec = _flatten(results[0])[1]
    per_sample = [_flatten(r)[0] for r in results]
    dims = _dims_for(out_dims, results[0], "out_dims")
    stacked = []
    for m, d in enumerate(dims):
        values = [r[m] for r in per_sample]
        if d is None:
            if isinstance(values[0], Tensor) and not all(_C.equal(v, values[0]) for v in values[1:]):
                raise ValueError("vmap: can not return a BatchedTensor when out_dim is None")
            stacked.append(values[0])
        elif not isinstance(values[0], Tensor):
            raise ValueError(f"vmap(<function>, ...): `<function>` must only return Tensors, got type "
                             f"{type(values[0])}. Did you mean to set out_dims= to None for output?")
        else:
            batched = _C.stack(values, dim=d)
            stacked.append(batched.narrow(d, 0, 0) if empty else batched)
    return _unflatten(stacked, out_spec)


class _Randomness:
    """vmap's randomness flag over a loop of calls (one per sample or basis vector): "error"
    raises when a call draws random numbers, "same" replays the first call's draws in each, and
    "different" lets the draws follow one another (as torch's batched draws)."""

    def __init__(self, randomness: str) -> None:
        if randomness not in ("error", "different", "same"):
            raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                               f"{randomness}")
        self.mode = randomness
        self.state = None

    def start(self) -> None:
        self.state = get_rng_state() if self.mode != "different" else None

    def call(self, fn, *args, **kwargs):
        if self.mode == "same":
            set_rng_state(self.state)
        result = fn(*args, **kwargs)
        if self.mode == "error" and not _C.equal(get_rng_state(), self.state):
            raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use the "
                               "'same' or 'different' randomness flags on vmap or perform the randomness operation "
                               "out of vmap")
        return result


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """func mapped over dim in_dims of its inputs: called once per index of that dim on the
    inputs' slices (the others as they are), the results stacked along out_dims."""
    rng = _Randomness(randomness)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        leaves, spec = _flatten(args)
        if not (isinstance(in_dims, (int, tuple)) or in_dims is None):
            raise ValueError(f"vmap(<function>, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                             f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
        dims = _dims_for(in_dims, args, "in_dims")
        sizes = set()
        for x, d in zip(leaves, dims):
            if d is None:
                continue
            if not isinstance(x, Tensor):
                raise ValueError(f"vmap(<function>, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input "
                                 f"but the input is of type {type(x)}. We cannot vmap over non-Tensor arguments, "
                                 f"please use None as the respective in_dim")
            if not -x.ndim <= d < x.ndim:
                raise ValueError(f"vmap(<function>, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some "
                                 f"input, but that input is a Tensor of dimensionality {x.ndim} so expected in_dim "
                                 f"to satisfy -{x.ndim} <= in_dim < {x.ndim}.")
            sizes.add(x.shape[d])
        if not sizes:
            raise ValueError(f"vmap(<function>, in_dims={in_dims}, ...)(<inputs>): at least one input must be a Tensor "
                             f"mapped over (in_dims all None)")
        if len(sizes) > 1:
            raise ValueError(f"vmap(<function>, in_dims={in_dims}, ...)(<inputs>): Expected all tensors to have the "
                             f"same size in the mapped dimension, got sizes {sorted(sizes)} for the mapped dimension")
        (batch,) = sizes
        if batch == 0:  # (f once on zeros of a sample's shape, for the outputs' shapes; none stacked)
            sample = [_C.zeros([n for k, n in enumerate(x.shape) if k != d % x.ndim], dtype=x.dtype, device=x.device)
                      if d is not None else x for x, d in zip(leaves, dims)]
            return _stacked([func(*_unflatten(sample, spec), **kwargs)], out_dims, empty=True)
        rng.start()
        results = []
        for b in range(batch):
            sliced = [x.select(d, b) if d is not None else x for x, d in zip(leaves, dims)]
            results.append(rng.call(func, *_unflatten(sliced, spec), **kwargs))
        return _stacked(results, out_dims)

    return wrapper


# ------------------------------------------------------------------ modules
def _owner(module, name: str):
    path, _, attr = name.rpartition(".")
    return (module.get_submodule(path) if path else module), attr


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):
    """module(*args, **kwargs) with the given tensors in place of its parameters and buffers of
    those names (dotted), the module's own restored afterwards; tied weights (one tensor under
    several names) follow the one given."""
    dicts = parameter_and_buffer_dicts if isinstance(parameter_and_buffer_dicts, (tuple, list)) \
        else (parameter_and_buffer_dicts,)
    given: dict = {}
    for d in dicts:
        for k, v in d.items():
            if k in given:
                raise ValueError(f"{k} appeared in multiple dictionaries; behavior of functional call is ambiguous")
            given[k] = v
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(dict(module.named_buffers(remove_duplicate=False)))
    if strict:
        missing = [k for k in named if k not in given]
        unexpected = [k for k in given if k not in named]
        if missing or unexpected:
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                               + "".join([f"Unexpected key(s): {', '.join(map(repr, unexpected))}." if unexpected
                                          else "", f"Missing key(s): {', '.join(map(repr, missing))}."
                                          if missing else ""]))
    if tie_weights:  # a tensor held under several names: each name takes what one of them is given
        by_tensor: dict = {}
        for k, t in named.items():
            by_tensor.setdefault(id(t), []).append(k)
        for names in by_tensor.values():
            chosen = [k for k in names if k in given]
            if any(given[k] is not given[chosen[0]] for k in chosen):
                raise ValueError(f"functional_call got multiple values for keys {sorted(chosen)}, which are tied. "
                                 f"Consider using tie_weights=False")
            if chosen:
                for k in names:
                    given.setdefault(k, given[chosen[0]])
    from .nn.utils import parametrize
    saved, cached = [], []
    try:
        for name, value in given.items():
            owner, attr = _owner(module, name)
            if parametrize.is_parametrized(owner, attr):  # (read through the cache: the originals untouched)
                cached.append((id(owner), attr))
                continue
            for store in ("_parameters", "_buffers"):
                if attr in owner.__dict__[store]:
                    saved.append((owner, store, attr, owner.__dict__[store][attr]))
                    owner.__dict__[store][attr] = value
                    break
            else:
                saved.append((owner, None, attr, owner.__dict__.get(attr, _MISSING)))
                object.__setattr__(owner, attr, value)
        args = () if args is None else (args if isinstance(args, tuple) else (args,))
        with parametrize.cached():
            for key in cached:
                parametrize._cache[key] = given[_name_of(module, *key)]
            try:
                return module(*args, **(kwargs or {}))
            finally:
                for key in cached:
                    parametrize._cache.pop(key, None)
    finally:
        for owner, store, attr, old in reversed(saved):
            if store is not None:
                owner.__dict__[store][attr] = old
            elif old is _MISSING:
                owner.__dict__.pop(attr, None)
            else:
                object.__setattr__(owner, attr, old)


_MISSING = object()


def _name_of(module, owner_id: int, attr: str) -> str:
    """The dotted name of submodule owner_id's attribute attr."""
    for prefix, sub in module.named_modules():
        if id(sub) == owner_id:
            return f"{prefix}.{attr}" if prefix else attr
    raise KeyError(attr)


def stack_module_state(models) -> tuple[dict, dict]:
    """(parameters, buffers) of several modules of one structure, each name's tensors stacked
    along a new first dim (the parameters as new leaves, requiring grad as the models' do):
    functional_call's arguments for vmap over an ensemble."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if len({type(m) for m in models}) != 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = {}
    for k, _ in models[0].named_parameters():
        each = [dict(m.named_parameters())[k] for m in models]
        if len({p.requires_grad for p in each}) != 1:
            raise RuntimeError(f"Expected {k} from each model to have the same .requires_grad")
        params[k] = _C.stack([p.detach() for p in each]).requires_grad_(each[0].requires_grad)
    buffers = {k: _C.stack([dict(m.named_buffers())[k] for m in models]) for k, _ in models[0].named_buffers()}
    return params, buffers
