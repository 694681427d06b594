"""tcore.utils.data: Dataset, IterableDataset, TensorDataset, DataLoader (batching, shuffling
through a Generator, drop_last), samplers (WeightedRandomSampler too), random_split,
default_collate."""
from .dataloader import DataLoader, default_collate, get_worker_info
from .dataset import ChainDataset, ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)

__all__ = ["DataLoader", "default_collate", "get_worker_info", "Dataset", "IterableDataset", "TensorDataset", "Subset",
           "ConcatDataset", "ChainDataset", "random_split", "Sampler", "SequentialSampler", "RandomSampler",
           "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler"]
