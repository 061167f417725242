"""Bug: the LSTM classifier on top of frozen token embeddings builds its initial hidden and cell states from the batch_size stored at construction; the training loader yields 18 reviews in batches of 8, so the last batch of 2 meets a hidden state sized for 8.

family: shape
category: data-paths
expected: RuntimeError
message: Expected hidden[0] size (1, 2, 16), got [1, 8, 16]
source: https://github.com/bentrevett/pytorch-sentiment-analysis/issues/87
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class FrozenEncoder(nn.Module):
    def __init__(self, vocab_size=50, dim=12):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, dim)
        self.config = {"hidden_size": dim}

    def forward(self, input_ids):
        return (self.embeddings(input_ids),)


class LSTMClassifier(nn.Module):
    def __init__(self, batch_size, output_size, hidden_size, bert):
        super().__init__()
        self.bert = bert
        self.batch_size = batch_size
        self.hidden_size = hidden_size
        self.lstm = nn.LSTM(bert.config["hidden_size"], hidden_size)
        self.label = nn.Linear(hidden_size, output_size)

    def forward(self, input_sentence, batch_size=None):
        with torch.no_grad():
            embedded = self.bert(input_sentence)[0]
        inputs = embedded.permute(1, 0, 2)
        n = self.batch_size if batch_size is None else batch_size
        h_0 = torch.zeros(1, n, self.hidden_size)  # cause: sized from the configured batch, not the actual one
        c_0 = torch.zeros(1, n, self.hidden_size)
        output, (final_hidden, final_cell) = self.lstm(inputs, (h_0, c_0))  # bug: last batch has 2 reviews
        return self.label(final_hidden[-1])


def make_loader(n_reviews=18, seq_len=10, batch_size=8, n_classes=3):
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, 50, (n_reviews, seq_len), generator=g)
    labels = torch.randint(0, n_classes, (n_reviews,), generator=g)
    return DataLoader(TensorDataset(ids, labels), batch_size=batch_size, shuffle=True, generator=g)


def train(model, loader, optimizer, criterion):
    model.train()
    for text, label in loader:
        optimizer.zero_grad()
        loss = criterion(model(text), label)
        loss.backward()
        optimizer.step()
    return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    BATCH_SIZE = 8
    model = LSTMClassifier(BATCH_SIZE, output_size=3, hidden_size=16, bert=FrozenEncoder())
    optimizer = torch.optim.Adam([p for n, p in model.named_parameters() if not n.startswith("bert")], lr=1e-3)
    print("loss", train(model, make_loader(batch_size=BATCH_SIZE), optimizer, nn.CrossEntropyLoss()))
