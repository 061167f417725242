"""Bug: the data silo computes balanced class weights with numpy (float64), and the text classification head wraps them with torch.tensor() into a float64 weight for its CrossEntropyLoss, which the float32 logits cannot use.

family: numpy-float64
category: model-outputs
expected: RuntimeError
message: expected scalar type Float but found Double
source: https://github.com/deepset-ai/FARM/issues/758
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class DataSilo:
    def __init__(self, n_samples=40, seq_len=10, vocab=100, n_labels=3, seed=0):
        rng = np.random.default_rng(seed)
        self.input_ids = rng.integers(0, vocab, (n_samples, seq_len))
        self.label_ids = rng.choice(n_labels, size=n_samples, p=[0.6, 0.3, 0.1])

    def calculate_class_weights(self):
        classes, counts = np.unique(self.label_ids, return_counts=True)
        weights = len(self.label_ids) / (len(classes) * counts)  # balanced, as sklearn's compute_class_weight
        return list(weights)

    def get_data_loader(self, batch_size=8):
        dataset = TensorDataset(torch.from_numpy(self.input_ids), torch.from_numpy(self.label_ids))
        return DataLoader(dataset, batch_size=batch_size, shuffle=True)


class TextClassificationHead(nn.Module):
    def __init__(self, layer_dims, class_weights=None):
        super().__init__()
        self.feed_forward = nn.Linear(layer_dims[0], layer_dims[1])
        if class_weights:
            self.balanced_weights = nn.Parameter(torch.tensor(class_weights), requires_grad=False)  # cause: float64 from numpy
        else:
            self.balanced_weights = None
        self.loss_fct = nn.CrossEntropyLoss(weight=self.balanced_weights, reduction="none")

    def forward(self, pooled_output):
        return self.feed_forward(pooled_output)

    def logits_to_loss(self, logits, label_ids):
        return self.loss_fct(logits, label_ids.view(-1))  # bug: float32 logits, float64 class weights


class AdaptiveModel(nn.Module):
    def __init__(self, vocab, hidden, head):
        super().__init__()
        self.language_model = nn.EmbeddingBag(vocab, hidden)
        self.prediction_head = head

    def forward(self, input_ids):
        return self.prediction_head(self.language_model(input_ids))


def main():
    torch.manual_seed(0)
    data_silo = DataSilo()
    head = TextClassificationHead(layer_dims=[16, 3], class_weights=data_silo.calculate_class_weights())
    model = AdaptiveModel(100, 16, head)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for input_ids, label_ids in data_silo.get_data_loader():
        logits = model(input_ids)
        per_sample_loss = model.prediction_head.logits_to_loss(logits, label_ids)
        loss = per_sample_loss.mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
