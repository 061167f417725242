"""Bug: the LSTM's hidden state is built once per epoch for batch_size reviews; 40 reviews in batches of 16 leave a last batch of 8, and the LSTM rejects the 16-row state.

family: shape
category: data-paths
expected: RuntimeError
message: Expected hidden[0] size
source: https://github.com/udacity/deep-learning-v2-pytorch/pull/398
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class SentimentRNN(nn.Module):
    def __init__(self, vocab_size, embedding_dim, hidden_dim, n_layers):
        super().__init__()
        self.n_layers = n_layers
        self.hidden_dim = hidden_dim
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_dim, n_layers, batch_first=True)
        self.fc = nn.Linear(hidden_dim, 1)

    def forward(self, x, hidden):
        lstm_out, hidden = self.lstm(self.embedding(x), hidden)  # bug: the last batch holds 8 reviews
        out = torch.sigmoid(self.fc(lstm_out[:, -1]))
        return out.squeeze(1), hidden

    def init_hidden(self, batch_size):
        weight = next(self.parameters()).data
        return (weight.new_zeros(self.n_layers, batch_size, self.hidden_dim),
                weight.new_zeros(self.n_layers, batch_size, self.hidden_dim))


def main():
    torch.manual_seed(0)
    reviews = torch.randint(1, 100, (40, 12))
    labels = torch.randint(0, 2, (40,)).float()
    batch_size = 16
    train_loader = DataLoader(TensorDataset(reviews, labels), shuffle=True, batch_size=batch_size)
    net = SentimentRNN(100, 16, 24, 2)
    criterion = nn.BCELoss()
    optimizer = torch.optim.Adam(net.parameters(), lr=0.001)
    for epoch in range(2):
        h = net.init_hidden(batch_size)  # cause: a state for batch_size reviews, reused for every batch
        for inputs, targets in train_loader:
            h = tuple([each.data for each in h])
            net.zero_grad()
            output, h = net(inputs, h)
            loss = criterion(output, targets)
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 5)
            optimizer.step()
        print(f"epoch {epoch}: {loss.item():.3f}")


if __name__ == "__main__":
    main()
