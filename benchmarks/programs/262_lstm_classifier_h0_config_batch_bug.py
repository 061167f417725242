"""Bug: the LSTM review classifier builds its initial hidden and cell states from the batch_size it was constructed with; the training loop skips short batches, but 70 test reviews in batches of 32 end with a batch of 6 and the LSTM rejects the 32-row state.

family: shape
category: data-paths
expected: RuntimeError
message: Expected hidden[0] size
source: https://github.com/miyamotok0105/pytorch_handbook/issues/11
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

batch_size = 32
output_size = 2
hidden_size = 64
embedding_length = 50
vocab_size = 500
fix_length = 40


class LstmClassifier(nn.Module):
    def __init__(self, batch_size, hidden_size, output_size, vocab_size, embedding_length):
        super().__init__()
        self.batch_size = batch_size
        self.hidden_size = hidden_size
        self.embed = nn.Embedding(vocab_size, embedding_length)
        self.lstm = nn.LSTM(embedding_length, hidden_size, batch_first=True)
        self.fc = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        x = self.embed(x)
        h0 = torch.zeros(1, self.batch_size, self.hidden_size)  # cause: the configured batch size, not x.size(0)
        c0 = torch.zeros(1, self.batch_size, self.hidden_size)
        output_seq, (h_n, c_n) = self.lstm(x, (h0, c0))  # bug: 6 reviews, 32-row state
        return self.fc(h_n[-1])


def make_loader(n, shuffle):
    text = torch.randint(2, vocab_size, (n, fix_length))
    labels = torch.randint(0, output_size, (n,))
    return DataLoader(TensorDataset(text, labels), batch_size=batch_size, shuffle=shuffle)


torch.manual_seed(0)
train_iter, test_iter = make_loader(96, True), make_loader(70, False)
net = LstmClassifier(batch_size, hidden_size, output_size, vocab_size, embedding_length)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(net.parameters())

for epoch in range(2):
    net.train()
    for text, labels in train_iter:
        if text.size(0) != batch_size:
            continue
        optimizer.zero_grad()
        loss = criterion(net(text), labels)
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch + 1}: loss {loss.item():.4f}")

net.eval()
test_acc = 0
with torch.no_grad():
    for text, labels in test_iter:
        outputs = net(text)
        test_acc += (outputs.max(1)[1] == labels).sum().item()
print("test_acc:", test_acc / len(test_iter.dataset))
