"""tcore.nn.utils: gradient clipping, parameters as one vector, packed sequences for the
recurrent layers, parametrizations (parametrize, parametrizations: weight_norm, spectral_norm,
orthogonal), the older weight_norm / spectral_norm hooks, the conv/linear + BatchNorm fusions and
convert_conv2d_weight_memory_format, skip_init, and pruning (prune: the <name>_orig / <name>_mask
reparametrization with L1/Ln, random and custom masks, global_unstructured, remove, is_pruned)
(torch.nn.utils' counterparts)."""
from . import parametrizations, parametrize, prune, rnn  # noqa: F401
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_,  # noqa: F401
                        get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights  # noqa: F401
from .memory_format import convert_conv2d_weight_memory_format  # noqa: F401
from .init import skip_init  # noqa: F401
