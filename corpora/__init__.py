"""Transaction data: the dataset type, file formats, named datasets, synthetic and text corpora."""

from corpora.dataset import DatasetStats, TransactionDataset
from corpora.errors import InputError

__all__ = ["DatasetStats", "InputError", "TransactionDataset"]
