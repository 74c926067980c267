"""Pure translation between email and the game: inbound text, commands, replies, rendering."""
