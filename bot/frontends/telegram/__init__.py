"""Telegram: python-telegram-bot in front of the front desk."""
