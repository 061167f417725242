"""Fixed twin of 265_sentiment_cnn_bare_squeeze_last_review_bug.py: the pooled maps are squeezed on their length dimension only (squeeze(2)), so a batch of one keeps its batch dimension.

family: shape
expected: success
source: https://github.com/bentrevett/pytorch-sentiment-analysis/issues/17
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

VOCAB, EMB, N_FILTERS, FILTER_SIZES, SEQ_LEN = 300, 32, 16, (2, 3, 4), 20


class CNN(nn.Module):
    def __init__(self, vocab_size, embedding_dim, n_filters, filter_sizes, output_dim, dropout=0.5):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.convs = nn.ModuleList([nn.Conv1d(embedding_dim, n_filters, fs) for fs in filter_sizes])
        self.fc = nn.Linear(len(filter_sizes) * n_filters, output_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, text):
        embedded = self.embedding(text).permute(0, 2, 1)
        conved = [F.relu(conv(embedded)) for conv in self.convs]
        pooled = [F.max_pool1d(conv, conv.shape[2]).squeeze(2) for conv in conved]
        cat = self.dropout(torch.cat(pooled, dim=1))
        return self.fc(cat)


def binary_accuracy(preds, y):
    return (torch.round(torch.sigmoid(preds)) == y).float().mean()


def evaluate(model, iterator, criterion):
    model.eval()
    epoch_loss, epoch_acc = 0.0, 0.0
    with torch.no_grad():
        for text, label in iterator:
            predictions = model(text).squeeze(1)
            epoch_loss += criterion(predictions, label).item()
            epoch_acc += binary_accuracy(predictions, label).item()
    return epoch_loss / len(iterator), epoch_acc / len(iterator)


def build_iterator(n, batch_size, shuffle):
    text = torch.randint(0, VOCAB, (n, SEQ_LEN))
    label = torch.randint(0, 2, (n,)).float()
    return DataLoader(TensorDataset(text, label), batch_size=batch_size, shuffle=shuffle)


torch.manual_seed(0)
train_iterator = build_iterator(64, 8, True)
valid_iterator = build_iterator(41, 8, False)
model = CNN(VOCAB, EMB, N_FILTERS, FILTER_SIZES, 1)
optimizer = torch.optim.Adam(model.parameters())
criterion = nn.BCEWithLogitsLoss()
for epoch in range(2):
    model.train()
    for text, label in train_iterator:
        optimizer.zero_grad()
        loss = criterion(model(text).squeeze(1), label)
        loss.backward()
        optimizer.step()
    valid_loss, valid_acc = evaluate(model, valid_iterator, criterion)
    print(f"epoch {epoch}: val loss {valid_loss:.3f} | val acc {valid_acc * 100:.1f}%")
