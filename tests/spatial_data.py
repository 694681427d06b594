"""What the nn.functional comparisons with torch share (test_functional_spatial, test_conv3d): the
functional module of either library, deterministic weights and standard-normal inputs."""
import numpy as np


def F(lib):
    return lib.nn.functional


def weights(shape) -> np.ndarray:
    n = int(np.prod(shape)) if shape else 1
    return np.linspace(0.5, 1.75, n).reshape(shape)


def inputs(specs, seed: int = 0) -> list[np.ndarray]:
    """A shape (tuple) becomes standard-normal float64 data; an array is taken as it is."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) if isinstance(s, tuple) else np.asarray(s) for s in specs]
