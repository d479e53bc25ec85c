"""Who acts in a trial: the grader's controls (reference, null, wrong, near misses), the scripted steps they take over
MCP, and the model agents (agents/). They reach the device only through the tool server's MCP client."""
