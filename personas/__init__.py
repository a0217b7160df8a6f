"""Personas: `*.toml` files in this folder (or a configured one) and the loader that checks them."""
