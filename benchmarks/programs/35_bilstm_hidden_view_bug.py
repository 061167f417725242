"""Bug: the final hidden state of a 2-layer bidirectional LSTM is flattened with h_n.view(-1, 2 * hidden), which doubles the batch.

family: shape
expected: ValueError
message: Expected input batch_size (8) to match target batch_size (4)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, N_CLASSES = 50, 3


class BiLSTMClassifier(nn.Module):
    def __init__(self, vocab=VOCAB, emb_dim=16, hidden=20, num_layers=2, n_classes=N_CLASSES):
        super().__init__()
        self.hidden = hidden
        self.embedding = nn.Embedding(vocab, emb_dim)
        self.lstm = nn.LSTM(emb_dim, hidden, num_layers=num_layers, bidirectional=True, batch_first=True)
        self.dropout = nn.Dropout(0.2)
        self.fc = nn.Linear(2 * hidden, n_classes)

    def forward(self, tokens):
        _, (h_n, _) = self.lstm(self.embedding(tokens))
        final = h_n.view(-1, 2 * self.hidden)  # cause: (layers * 2, B, H) viewed as (-1, 2H) mixes layers into the batch
        return self.fc(self.dropout(final))


def make_batch(batch_size=4, seq_len=9):
    tokens = torch.randint(0, VOCAB, (batch_size, seq_len))
    labels = tokens[:, 0] % N_CLASSES
    return tokens, labels


def train(model, steps=3, lr=1e-3, clip=1.0):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for step in range(steps):
        tokens, labels = make_batch()
        logits = model(tokens)
        loss = F.cross_entropy(logits, labels)  # bug: 8 rows of logits for 4 labels
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        print(f"step {step}: {loss.item():.3f}")


train(BiLSTMClassifier())
