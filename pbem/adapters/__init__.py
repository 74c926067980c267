"""The only code that touches the network, the disk and the clock."""
