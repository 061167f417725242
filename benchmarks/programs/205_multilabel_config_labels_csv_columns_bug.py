"""Bug: basic_config lists the six Kaggle toxic labels and the classifier head is sized from it, but the processor takes every CSV column after the text as a label, so a 36-label dataset gives (batch, 36) targets for (batch, 6) logits and BCEWithLogitsLoss refuses them.

family: shape
category: configuration
expected: ValueError
message: must be the same as input size
source: https://github.com/lonePatient/Bert-Multi-Label-Text-Classification/issues/10
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

config = {
    "labels": ["toxic", "severe_toxic", "obscene", "threat", "insult", "identity_hate"],
    "max_seq_len": 16,
    "vocab_size": 500,
    "batch_size": 8,
    "epochs": 1,
    "learning_rate": 2e-5,
}


def read_csv(n_rows=24, n_label_columns=36):
    rng = np.random.default_rng(0)
    kaggle = ["toxic", "severe_toxic", "obscene", "threat", "insult", "identity_hate"]
    header = ["comment_text"] + kaggle + [f"label_{i}" for i in range(len(kaggle), n_label_columns)]
    rows = [[rng.integers(1, 500, size=rng.integers(4, 16)).tolist()] + rng.integers(0, 2, n_label_columns).tolist()
            for _ in range(n_rows)]
    return header, rows


class TaskData:
    def __init__(self, cfg):
        self.cfg = cfg

    def read_data(self, header, rows):
        targets = np.array([row[1:] for row in rows], dtype=np.float32)  # cause: every column after the text, not cfg["labels"]
        sentences = [row[0] for row in rows]
        return sentences, targets

    def build_tensors(self, sentences, targets):
        ids = torch.zeros(len(sentences), self.cfg["max_seq_len"], dtype=torch.long)
        for i, sent in enumerate(sentences):
            ids[i, : len(sent)] = torch.tensor(sent[: self.cfg["max_seq_len"]])
        return TensorDataset(ids, torch.from_numpy(targets))


class BertForMultiLable(nn.Module):
    def __init__(self, vocab_size, num_labels, hidden=32):
        super().__init__()
        self.bert = nn.EmbeddingBag(vocab_size, hidden)
        self.dropout = nn.Dropout(0.1)
        self.classifier = nn.Linear(hidden, num_labels)

    def forward(self, input_ids):
        return self.classifier(self.dropout(self.bert(input_ids)))


def run_train(cfg):
    torch.manual_seed(0)
    processor = TaskData(cfg)
    sentences, targets = processor.read_data(*read_csv())
    loader = DataLoader(processor.build_tensors(sentences, targets), batch_size=cfg["batch_size"], shuffle=True)
    model = BertForMultiLable(cfg["vocab_size"], num_labels=len(cfg["labels"]))
    criterion = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["learning_rate"])
    for epoch in range(cfg["epochs"]):
        for input_ids, label_ids in loader:
            logits = model(input_ids)
            loss = criterion(logits, label_ids)  # bug: (8, 36) targets for (8, 6) logits
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: {loss.item():.4f}")


if __name__ == "__main__":
    run_train(config)
