"""Topic memory (the paper's topics): SQL rows, the vector index, labels."""
