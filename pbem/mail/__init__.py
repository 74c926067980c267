"""Mail in and mail out: reading player mail, composing replies."""
