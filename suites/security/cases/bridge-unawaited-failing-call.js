/*---
description: a failing call the guest never handles fails the cell with nested_tool_failed and the tool's message
requirements: [CM-NEST-22]
class: bridge
tools: [fail]
expect:
  code: nested_tool_failed
  errorMatches: 'unhandled-tool-failure'
---*/
dispatch("fail", {message: "unhandled-tool-failure"});
return "returned";
