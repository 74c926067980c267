"""The daemon: the service that reads the moderator mailbox and applies mail to games, and its parts."""
