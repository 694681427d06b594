"""From the YAML files to the plan: the one sequence that `python -m codegen.generate_code` and
`doit codegen` both run (parse, check the kernels and derivatives, select, plan)."""
from __future__ import annotations

from .derivatives import load_checked
from .gen_dispatch import REGISTERED_KEYS
from .load import check_kernels_exist, load_lazy_set
from .plan import Options, Unit, make_plan
from .selective import selected_names
from .structured import META_KEY

# The keys whose kernels a source folder must define (Meta's are the meta functions' or generated).
SOURCE_KERNEL_KEYS = frozenset(k for k in REGISTERED_KEYS if k != META_KEY)


def plan_from_files(native_functions: str, tags: str, options: Options, *, derivatives: str | None = None,
                    selected_op_list: str | None = None, operators_yaml: str | None = None,
                    kernel_dirs: tuple[str, ...] = (), cache_dir: str | None = None,
                    deprecated_bindings: bool = True) -> list[Unit]:
    """The plan for these inputs. Entries are parsed only when not in cache_dir, and their models
    unpickled only when a unit renders them. kernel_dirs: the folders whose sources must define
    every kernel the YAML names (their composite/ subfolders count for selective builds);
    deprecated_bindings: deprecated.yaml's old signatures get bindings."""
    opset = load_lazy_set(native_functions, tags, cache_dir)
    if kernel_dirs:
        check_kernels_exist(opset.functions, list(kernel_dirs), SOURCE_KERNEL_KEYS)
    found, deprecated = (), ()
    if derivatives is not None:
        found, deprecated = load_checked(derivatives, opset.schemas(), opset.autogen_names(), cache_dir)
    selected = selected_names(opset, selected_op_list, operators_yaml, [f"{d}/composite" for d in kernel_dirs])
    return make_plan(opset, options, () if options.disable_autograd else found,
                     deprecated if deprecated_bindings else (), selected)
