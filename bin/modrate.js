#!/usr/bin/env node
'use strict';
require('./load-tool.js').start('modrate');
