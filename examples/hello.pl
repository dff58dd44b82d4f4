print "hello from sbx\n";
