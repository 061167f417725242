"""Bug: the experiment config marks the task multilabel, so the processor encodes each label as a 4-wide multi-hot row, but the prediction head stays the default single-label TextClassificationHead, whose CrossEntropyLoss flattens the (8, 4) label ids into 32 targets for 8 rows of logits.

family: class-target
category: configuration
expected: ValueError
message: Expected input batch_size (8) to match target batch_size (32)
source: https://github.com/deepset-ai/FARM/issues/100
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

experiment = {
    "task": {"label_list": ["sports", "politics", "tech", "culture"], "multilabel": True, "max_seq_len": 12},
    "model": {"prediction_head": "TextClassificationHead", "vocab_size": 300, "hidden": 24},
    "training": {"batch_size": 8, "n_epochs": 1, "learning_rate": 3e-5},
}


class TextClassificationProcessor:
    def __init__(self, label_list, multilabel, max_seq_len):
        self.label_list, self.multilabel, self.max_seq_len = label_list, multilabel, max_seq_len

    def _encode_label(self, labels):
        if self.multilabel:
            return [1 if name in labels else 0 for name in self.label_list]  # cause: multi-hot rows of 4
        return self.label_list.index(labels[0])

    def dataset_from_dicts(self, dicts):
        ids = torch.tensor([d["tokens"][: self.max_seq_len] for d in dicts])
        label_ids = torch.tensor([self._encode_label(d["labels"]) for d in dicts])
        return TensorDataset(ids, label_ids)


class TextClassificationHead(nn.Module):
    def __init__(self, hidden, num_labels):
        super().__init__()
        self.feed_forward = nn.Linear(hidden, num_labels)
        self.loss_fct = nn.CrossEntropyLoss(reduction="none")

    def forward(self, x):
        return self.feed_forward(x)

    def logits_to_loss(self, logits, label_ids):
        return self.loss_fct(logits, label_ids.view(-1))  # bug: 8 rows of logits, 32 flattened label ids


class MultiLabelTextClassificationHead(TextClassificationHead):
    def __init__(self, hidden, num_labels):
        super().__init__(hidden, num_labels)
        self.loss_fct = nn.BCEWithLogitsLoss(reduction="none")

    def logits_to_loss(self, logits, label_ids):
        return self.loss_fct(logits, label_ids.float()).mean(dim=1)


HEADS = {cls.__name__: cls for cls in (TextClassificationHead, MultiLabelTextClassificationHead)}


class AdaptiveModel(nn.Module):
    def __init__(self, vocab_size, hidden, head):
        super().__init__()
        self.language_model = nn.EmbeddingBag(vocab_size, hidden)
        self.prediction_head = head

    def forward(self, input_ids):
        return self.prediction_head(self.language_model(input_ids))


def main(cfg):
    g = torch.manual_seed(0)
    names = cfg["task"]["label_list"]
    dicts = [{"tokens": torch.randint(1, 300, (12,), generator=g).tolist(),
              "labels": [names[i % 4], names[(i * 3 + 1) % 4]]} for i in range(16)]
    processor = TextClassificationProcessor(**cfg["task"])
    loader = DataLoader(processor.dataset_from_dicts(dicts), batch_size=cfg["training"]["batch_size"], shuffle=True)
    head = HEADS[cfg["model"]["prediction_head"]](cfg["model"]["hidden"], len(names))
    model = AdaptiveModel(cfg["model"]["vocab_size"], cfg["model"]["hidden"], head)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["training"]["learning_rate"])
    for epoch in range(cfg["training"]["n_epochs"]):
        for input_ids, label_ids in loader:
            logits = model(input_ids)
            loss = model.prediction_head.logits_to_loss(logits, label_ids).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: {loss.item():.4f}")


if __name__ == "__main__":
    main(experiment)
