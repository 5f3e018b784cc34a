"""The kernel grid, run through torch: each point is a torch call on random fp32 data, described by
torch_ops exactly as a node of a traced model is. Shapes span the layers the workload builders produce
(ResNet's 1x1, 3x3 and 7x7 convolutions at several strides and widths, BERT's projections and attention
matmuls, their normalisations and activations) and sizes between and beyond them."""
import torch
import torch.nn as nn

import torch_ops

# (cin, cout, hw, kernel, stride): ResNet-like layers and others of the same families.
CONVS = [
    (3, 64, 224, 7, 2), (64, 64, 56, 1, 1), (64, 256, 56, 1, 1), (256, 64, 56, 1, 1), (256, 128, 56, 1, 1),
    (256, 512, 56, 1, 2), (128, 512, 28, 1, 1), (512, 128, 28, 1, 1), (512, 1024, 28, 1, 2),
    (1024, 256, 14, 1, 1), (256, 1024, 14, 1, 1), (2048, 512, 7, 1, 1), (512, 2048, 7, 1, 1),
    (96, 192, 40, 1, 1), (64, 64, 56, 3, 1), (128, 128, 56, 3, 2), (128, 128, 28, 3, 1), (256, 256, 28, 3, 2),
    (256, 256, 14, 3, 1), (512, 512, 14, 3, 2), (512, 512, 7, 3, 1), (64, 128, 56, 3, 2), (32, 48, 80, 3, 1),
    (64, 128, 56, 1, 2), (128, 256, 28, 1, 2),
]
# (m, n, k) of linear layers: rows are tokens or images.
LINEARS = [(m, n, k) for m in (1, 32, 128) for (n, k) in ((768, 768), (3072, 768), (768, 3072), (1000, 512),
                                                          (1000, 2048), (256, 256))] + [(384, 768, 768),
                                                                                        (64, 1024, 1024)]
# (batch, m, n, k) of batched matmuls: attention scores and context.
MATMULS = [(12, 128, 128, 64), (12, 128, 64, 128), (12, 64, 64, 64), (12, 64, 64, 64), (4, 256, 256, 64),
           (12, 32, 32, 64)]
# (channels, hw) feature maps for normalisation, activation and pooling.
MAPS = [(64, 112), (64, 56), (256, 56), (128, 28), (512, 28), (256, 14), (1024, 14), (512, 7), (2048, 7)]
ROWS = [(128, 768), (32, 768), (512, 768), (128, 1024), (128, 3072)]
SOFTMAX = [(12 * 128, 128), (12 * 64, 64), (12 * 32, 32), (4 * 256, 256), (1, 1000), (8, 1000)]


def module_point(name, module, *inputs):
    with torch.no_grad():
        y = module(*inputs)
    record = torch_ops.describe_module(module, inputs, y)
    return name, (lambda: module(*inputs)), record


def function_point(name, target, *args):
    with torch.no_grad():
        y = target(*args)
    record = torch_ops.describe_function(target, args, y)
    return name, (lambda: target(*args)), record


def grid(quick):
    torch.manual_seed(0)
    convs = CONVS[:3] if quick else CONVS
    batches = (1,) if quick else (1, 8)
    for b in batches:
        for cin, cout, hw, k, s in convs:
            conv = nn.Conv2d(cin, cout, k, stride=s, padding=k // 2, bias=False).eval()
            yield module_point("conv2d", conv, torch.randn(b, cin, hw, hw))
    for m, n, k in LINEARS[:2] if quick else LINEARS:
        yield module_point("linear", nn.Linear(k, n), torch.randn(m, k))
    for bt, m, n, k in MATMULS[:1] if quick else MATMULS:
        yield function_point("matmul", torch.matmul, torch.randn(bt, m, k), torch.randn(bt, k, n))
    for b in batches:
        for c, hw in MAPS[:2] if quick else MAPS:
            x = torch.randn(b, c, hw, hw)
            yield module_point("batchnorm", nn.BatchNorm2d(c).eval(), x)
            yield module_point("relu", nn.ReLU(), x)
            yield function_point("add", torch.add, x, x)
            if hw >= 56:
                yield module_point("maxpool", nn.MaxPool2d(3, 2, 1), x)
            if hw <= 7:
                yield module_point("avgpool", nn.AdaptiveAvgPool2d(1), x)
    for r, c in ROWS[:1] if quick else ROWS:
        x = torch.randn(r, c)
        yield module_point("layernorm", nn.LayerNorm(c).eval(), x)
        yield module_point("gelu", nn.GELU(), x)
        yield function_point("add", torch.add, x, x)
    for r, c in SOFTMAX[:1] if quick else SOFTMAX:
        yield module_point("softmax", nn.Softmax(dim=-1), torch.randn(r, c))
    for r in (128,) if quick else (32, 128, 512):
        yield module_point("embedding", nn.Embedding(30522, 768), torch.randint(0, 30522, (1, r)))
