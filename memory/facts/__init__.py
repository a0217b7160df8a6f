"""Fact memory: short statements with their date and rounds, found by words and meaning."""
