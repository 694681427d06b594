"""tcore.utils.data: Dataset, TensorDataset, DataLoader (batching, shuffling through a
Generator, drop_last), samplers, random_split, default_collate."""
from .dataloader import DataLoader, default_collate
from .dataset import ConcatDataset, Dataset, Subset, TensorDataset, random_split
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler

__all__ = ["DataLoader", "default_collate", "Dataset", "TensorDataset", "Subset", "ConcatDataset", "random_split",
           "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "BatchSampler"]
