"""Plans: coming events the user told of ("my interview is on Friday"), kept with their days so
the companion can ask how they went once they are over."""
