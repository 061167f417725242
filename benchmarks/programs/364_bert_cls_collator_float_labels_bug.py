"""Bug: the data collator builds the SST-2 labels with torch.Tensor(...), i.e. float32; the sequence classifier picks its loss from the labels' dtype (HF problem_type logic), so float labels select the multi-label BCE path, which needs (batch, num_labels) targets.

family: class-target
category: model-outputs
expected: ValueError
message: Target size (torch.Size([8])) must be the same as input size (torch.Size([8, 2]))
source: https://github.com/DaSE4Good/EfficientTools/issues/21
"""
from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn as nn


@dataclass
class SequenceClassifierOutput:
    loss: Optional[torch.Tensor]
    logits: torch.Tensor


class BertForSequenceClassification(nn.Module):
    def __init__(self, vocab_size=128, hidden_size=32, num_labels=2, problem_type=None):
        super().__init__()
        self.num_labels, self.problem_type = num_labels, problem_type
        self.embeddings = nn.Embedding(vocab_size, hidden_size, padding_idx=0)
        layer = nn.TransformerEncoderLayer(hidden_size, nhead=2, dim_feedforward=64, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)
        self.pooler = nn.Sequential(nn.Linear(hidden_size, hidden_size), nn.Tanh())
        self.classifier = nn.Linear(hidden_size, num_labels)

    def forward(self, input_ids, attention_mask, labels=None):
        hidden = self.encoder(self.embeddings(input_ids), src_key_padding_mask=attention_mask.eq(0))
        logits = self.classifier(self.pooler(hidden[:, 0]))
        loss = None
        if labels is not None:
            if self.problem_type is None:
                if self.num_labels == 1:
                    self.problem_type = "regression"
                elif labels.dtype == torch.long or labels.dtype == torch.int:
                    self.problem_type = "single_label_classification"
                else:
                    self.problem_type = "multi_label_classification"
            if self.problem_type == "single_label_classification":
                loss = nn.CrossEntropyLoss()(logits.view(-1, self.num_labels), labels.view(-1))
            elif self.problem_type == "multi_label_classification":
                loss = nn.BCEWithLogitsLoss()(logits, labels)  # bug: (8,) float labels against (8, 2) logits
            else:
                loss = nn.MSELoss()(logits.squeeze(), labels.squeeze())
        return SequenceClassifierOutput(loss=loss, logits=logits)


@dataclass
class DataCollator:
    max_length: Optional[int] = 16

    def __call__(self, features):
        input_ids = torch.zeros(len(features), self.max_length, dtype=torch.long)
        for i, f in enumerate(features):
            ids = f["input_ids"][: self.max_length]
            input_ids[i, : len(ids)] = torch.tensor(ids)
        batch = {"input_ids": input_ids, "attention_mask": (input_ids != 0).long()}
        batch["labels"] = torch.Tensor([f["label"] for f in features])  # cause: float32 labels
        return batch


def load_sst2(n=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    data = []
    for _ in range(n):
        length = int(torch.randint(4, 16, (1,), generator=g))
        data.append({"input_ids": [101] + torch.randint(5, 100, (length,), generator=g).tolist(),
                     "label": int(torch.randint(0, 2, (1,), generator=g))})
    return data


if __name__ == "__main__":
    torch.manual_seed(0)
    model = BertForSequenceClassification()
    train_dataset = load_sst2()
    loader = torch.utils.data.DataLoader(train_dataset, batch_size=8, shuffle=True, collate_fn=DataCollator())
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.01)
    for epoch in range(1):
        for batch in loader:
            outputs = model(**batch)
            optimizer.zero_grad()
            outputs.loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {outputs.loss.item():.4f}")
