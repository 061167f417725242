"""Bug: the char-RNN classifier declares its output layer as nn.Linear(-1, output_size), expecting -1 to mean "infer the input width" as in view(), but Linear allocates a (output_size, -1) weight at construction.

family: shape
category: model-shapes
expected: RuntimeError
message: Trying to create tensor with negative dimension -1: [4, -1]
source: https://github.com/pytorch/tutorials/issues/260
"""
import random
import string

import torch
import torch.nn as nn

all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)


def letterToIndex(letter):
    return all_letters.find(letter)


def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


def build_category_lines():
    syllables = ["ko", "va", "ri", "shi", "mo", "ten", "ber", "ski", "lo", "an"]
    categories = ["Japanese", "Russian", "German", "Italian"]
    rng = random.Random(0)
    lines = {c: ["".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))).title() for _ in range(20)] for c in categories}
    return lines, categories


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(-1, output_size)  # bug: negative in_features  # cause: -1 used as "infer" for in_features
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        combined = torch.cat((input, hidden), 1)
        hidden = self.i2h(combined)
        output = self.softmax(self.i2o(combined))
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


def randomTrainingExample(category_lines, all_categories, rng):
    category = rng.choice(all_categories)
    line = rng.choice(category_lines[category])
    category_tensor = torch.tensor([all_categories.index(category)], dtype=torch.long)
    return category, line, category_tensor, lineToTensor(line)


def train(rnn, criterion, category_tensor, line_tensor, learning_rate=0.005):
    hidden = rnn.initHidden()
    rnn.zero_grad()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    loss = criterion(output, category_tensor)
    loss.backward()
    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)
    return output, loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    category_lines, all_categories = build_category_lines()
    n_categories = len(all_categories)
    n_hidden = 32
    rnn = RNN(n_letters, n_hidden, n_categories)
    criterion = nn.NLLLoss()
    rng = random.Random(1)
    current_loss = 0.0
    for it in range(1, 201):
        category, line, category_tensor, line_tensor = randomTrainingExample(category_lines, all_categories, rng)
        output, loss = train(rnn, criterion, category_tensor, line_tensor)
        current_loss += loss
    print(f"avg loss {current_loss / 200:.4f}")
