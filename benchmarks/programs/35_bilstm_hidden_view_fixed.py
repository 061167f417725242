"""Fixed twin of 35_bilstm_hidden_view_bug.py: the last layer's two directions are concatenated.

family: shape
expected: success
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
        final = torch.cat([h_n[-2], h_n[-1]], dim=1)
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
        loss = F.cross_entropy(logits, labels)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        print(f"step {step}: {loss.item():.3f}")


train(BiLSTMClassifier())
