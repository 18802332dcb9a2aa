// placeholder: regenerate with make mcp-golden
