from lib.build.cli import main

raise SystemExit(main())
