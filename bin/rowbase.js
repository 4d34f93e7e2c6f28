#!/usr/bin/env node
// Thin launcher for the compiled CLI (npm install builds dist/ through the prepare script).
import '../dist/main.js';
