"""tcore.nn.utils: gradient clipping, parameters as one vector, and packed sequences for the
recurrent layers (torch.nn.utils' counterparts)."""
from . import rnn  # noqa: F401
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_,  # noqa: F401
                        get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
