"""Bug: the LSTM regressor is built with batch_first=True but its forward views each batch of feature vectors as (1, batch_len, input_dim), which in batch-first layout is one sequence of batch_len steps, so the LSTM expects a 1-row state and rejects the (num_layers, batch_len, hidden) state from init_hidden.

family: shape
category: model-shapes
expected: RuntimeError
message: Expected hidden[0] size (2, 1, 32), got [2, 16, 32]
source: https://github.com/pytorch/pytorch/issues/1255
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class LSTMRegressor(nn.Module):
    def __init__(self, input_dim, hidden_dim, num_layers, batch_len, dropout=0.1):
        super().__init__()
        self.input_dim = input_dim
        self.hidden_dim = hidden_dim
        self.num_layers = num_layers
        self.batch_len = batch_len
        self.lstm = nn.LSTM(input_dim, hidden_dim, num_layers, dropout=dropout, batch_first=True)
        self.out = nn.Linear(hidden_dim, 1)
        self.hidden = self.init_hidden()

    def init_hidden(self):
        h_0 = torch.zeros(self.num_layers, self.batch_len, self.hidden_dim)
        c_0 = torch.zeros(self.num_layers, self.batch_len, self.hidden_dim)
        return (h_0, c_0)

    def forward(self, sequences):
        x = sequences.view(1, self.batch_len, self.input_dim)  # cause: batch-first layout read as one sequence of batch_len steps
        lstm_out, self.hidden = self.lstm(x, self.hidden)  # bug: 1-row input, batch_len-row state
        return self.out(lstm_out.reshape(self.batch_len, self.hidden_dim)).squeeze(1)


def main():
    torch.manual_seed(0)
    input_dim, batch_len = 8, 16
    features = torch.randn(64, input_dim)
    targets = features.sum(1, keepdim=False) * 0.1
    train_loader = DataLoader(TensorDataset(features, targets), batch_size=batch_len, shuffle=True)
    model = LSTMRegressor(input_dim, hidden_dim=32, num_layers=2, batch_len=batch_len)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()
    for epoch in range(2):
        for train_input, train_target in train_loader:
            model.hidden = model.init_hidden()
            output = model(train_input)
            loss = loss_fn(output, train_target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: mse {loss.item():.4f}")


if __name__ == "__main__":
    main()
