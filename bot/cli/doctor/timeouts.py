"""How long doctor waits for each part before it reports the part as not answering."""

SQL_TIMEOUT = 10.0  # seconds; a server that has not answered by then will not help a chat
EMBED_TIMEOUT = 20.0
CHAT_TIMEOUT = 20.0  # for the first token, model loading included
NETWORK_TIMEOUT = 5.0  # the chroma heartbeat, Telegram's getMe, Discord's users/@me
