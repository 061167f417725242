"""Fixed twin of 338_finetune_num_labels_config_bug.py: config.num_labels is 18, the number of labels in the dataset the head is trained on.

family: class-target
category: configuration
expected: success
source: https://github.com/TencentGameMate/gnn_cross_lingual/issues/5
"""
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


@dataclass
class FinetuneConfig:
    vocab_size: int = 50
    hidden_size: int = 16
    num_labels: int = 18
    batch_size: int = 8
    lr: float = 2e-3


class TinyEncoderClassifier(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        layer = nn.TransformerEncoderLayer(config.hidden_size, 2, 32, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)

    def forward(self, input_ids):
        hidden = self.encoder(self.embeddings(input_ids))
        return self.classifier(hidden[:, 0])


def build_dataset(config, n=32, seq_len=10, n_intents=18):
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, config.vocab_size, (n, seq_len), generator=g)
    labels = torch.arange(n) % n_intents
    return TensorDataset(ids, labels)


def finetune_model(config):
    model = TinyEncoderClassifier(config)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
    loader = DataLoader(build_dataset(config), batch_size=config.batch_size, shuffle=False)
    model.train()
    for b_input_ids, b_labels in loader:
        logits = model(b_input_ids)
        loss = nn.functional.cross_entropy(logits, b_labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    print(f"final loss {finetune_model(FinetuneConfig()):.4f}")
